import CaptureCore
import Hummingbird

/// Strict CSP and friends on every response. `frame-src janrain:` lets the bridge signal its host.
struct SecurityHeaders {
    static let contentSecurityPolicy = ContentSecurityPolicy.strict

    /// The headers every reply carries, including the ones written below the router (see `RequestGuardHandler`).
    let fields: HTTPFields
    /// Proxies whose `X-Forwarded-Proto` / `Forwarded: proto=` may say the client used https.
    let proxies: TrustedProxies

    init(settings: ServiceSettings, proxies: TrustedProxies = .none) {
        self.proxies = proxies
        var fields = HTTPFields()
        fields[.contentSecurityPolicy] = Self.contentSecurityPolicy
        // Old browsers ignore CSP's frame-ancestors; X-Frame-Options says the same to them.
        fields[.xFrameOptions] = "DENY"
        fields[.referrerPolicy] = "no-referrer"
        fields[.xContentTypeOptions] = "nosniff"
        // HSTS only means something over TLS; sent on plain http it would be ignored or, behind a
        // proxy that is not https, pin a name to a scheme the service does not serve.
        if URLOrigin(settings.resolvedPublicOrigin)?.scheme == "https" {
            fields[.strictTransportSecurity] = "max-age=31536000"
        }
        self.fields = fields
    }

    /// Sets the headers on `response`, whatever answered.
    func apply(to response: inout Response, request: Request, context: CaptureRequestContext) {
        for field in fields {
            // A flow page's own policy is the strict one plus the hashes of the texts it carries inline
            // (`ContentSecurityPolicy.header(allowing:)`); every other reply gets the strict one.
            if field.name == .contentSecurityPolicy, response.headers[.contentSecurityPolicy] != nil { continue }
            response.headers[field.name] = field.value
        }
        // Without a configured https origin, a trusted TLS proxy's word that this client came over https is enough.
        if response.headers[.strictTransportSecurity] == nil, !proxies.isEmpty,
            APIRequest.origin(request, context: context, proxies: proxies).forwardedScheme == "https"
        {
            response.headers[.strictTransportSecurity] = "max-age=31536000"
        }
    }
}
