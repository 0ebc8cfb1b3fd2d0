import CaptureCore
import Hummingbird

/// The service's own cookies (a social sign-in's browser binding, the OpenID Connect browser session): HttpOnly,
/// `SameSite=Lax`, `Secure` when the public origin is https, each on the narrowest path that reads it.
enum Cookies {
    /// The value of the cookie `name` among a request's `Cookie` headers.
    static func value(named name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == name { return parts[1] }
            }
        }
        return nil
    }

    /// A `Set-Cookie` value; `maxAge` 0 removes the cookie.
    static func setting(_ name: String, _ value: String, path: String, maxAge: Int, settings: ServiceSettings) -> String {
        let secure = settings.resolvedPublicOrigin.hasPrefix("https://") ? "; Secure" : ""
        return "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax\(secure)"
    }
}

extension Response {
    /// A redirect that is never cached and leaks no Referer to where it leads (a provider's page, a client's).
    static func redirect(to url: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.location] = url
        headers[.cacheControl] = "no-store"
        headers[.referrerPolicy] = "no-referrer"
        return Response(status: status, headers: headers)
    }
}
