import Foundation

/// `legacyJanrain` in `service.json`: the Janrain app this service replaces, asked at sign-in and at forgot-password
/// for a person it does not know yet, until `cutover` (docs/janrain-migration.md, docs/adr/0065-…). The owner
/// client's secret never lives in the file: `clientSecretFile` names a file holding it, else the environment
/// variable `clientSecretEnvironment` (default `CAPTURE_LEGACY_JANRAIN_SECRET`) gives it.
public struct LegacyJanrainSettings: Sendable, Equatable, Codable {
    /// The old app's Capture domain, as its SDKs were configured: `https://<app>.janraincapture.com`.
    public var captureUrl: String
    /// A client of the old app with `owner` or `direct_read_access`: reads the record (`entity`, `entity.find`).
    public var clientId: String
    public var clientSecretFile: String?
    public var clientSecretEnvironment: String?
    /// The old app's login client (`login_client`): the `client_id` of its `/oauth/auth_native_traditional`.
    public var loginClientId: String
    /// The flow, its version, locale and form the old app's sign-in names, as an SDK-era app sent them.
    public var flow: String?
    public var flowVersion: String?
    public var locale: String?
    public var signInForm: String?
    /// The old login client's registered `redirect_uri` (sent when set; Janrain's examples use http://localhost).
    public var redirectUri: String?
    /// The old app's entity type (`user` unless set).
    public var entityType: String?
    /// From this instant (ISO 8601 with a zone, such as 2027-03-01T00:00:00Z) the old app is never asked again.
    public var cutover: String
    /// Each call's bound: connect and total (seconds).
    public var connectTimeoutSeconds: Double?
    public var timeoutSeconds: Double?
    /// After this many failures in a row (no answer, a slow one, an answer that is not Janrain's), the old app is not
    /// asked for `breakerCooldownSeconds`.
    public var breakerFailures: Int?
    public var breakerCooldownSeconds: Double?
    /// Calls to the old app in flight at once (each on a libcurl thread of its own); a sign-in beyond them is not
    /// checked there (the ordinary refusal).
    public var maxConcurrentCalls: Int?
    /// Plain `http://` for the old app, allowed only on loopback (a second instance of this service in tests).
    public var allowPlainHTTP: Bool?

    public init(captureUrl: String, clientId: String, loginClientId: String, cutover: String) {
        self.captureUrl = captureUrl
        self.clientId = clientId
        self.loginClientId = loginClientId
        self.cutover = cutover
    }

    public static let defaultSecretEnvironment = "CAPTURE_LEGACY_JANRAIN_SECRET"

    public var secretEnvironmentName: String { clientSecretEnvironment ?? Self.defaultSecretEnvironment }

    /// `cutover` as an instant (nil when it does not parse; `problem()` refuses that).
    public var cutoverDate: Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: cutover) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: cutover)
    }

    public var resolvedConnectTimeout: Double { connectTimeoutSeconds ?? 2 }
    public var resolvedTimeout: Double { timeoutSeconds ?? 3 }
    public var resolvedBreakerFailures: Int { breakerFailures ?? 5 }
    public var resolvedBreakerCooldown: Double { breakerCooldownSeconds ?? 60 }
    public var resolvedMaxConcurrentCalls: Int { maxConcurrentCalls ?? 8 }

    /// The old app's origin (`captureUrl` without any path), calls are made under.
    public var base: String { URLOrigin(captureUrl)?.description ?? captureUrl }

    /// The first key that is wrong and why.
    func problem() -> (key: String, problem: String)? {
        guard let origin = URLOrigin(captureUrl) else {
            return ("captureUrl", "must be an http(s) origin such as https://my-app.janraincapture.com")
        }
        if origin.scheme == "http" {
            guard allowPlainHTTP == true, ["127.0.0.1", "localhost", "::1", "[::1]"].contains(origin.host) else {
                return ("captureUrl", "must be https:// (http:// only on loopback with allowPlainHTTP)")
            }
        }
        for (key, value) in [("clientId", clientId), ("loginClientId", loginClientId)]
        where value.isEmpty || value.count > 128 || !value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return (key, "must be 1-128 printable ASCII characters")
        }
        guard cutoverDate != nil else {
            return ("cutover", "must be an ISO 8601 date and time with a zone, such as 2027-03-01T00:00:00Z")
        }
        guard resolvedConnectTimeout > 0, resolvedConnectTimeout <= 30 else {
            return ("connectTimeoutSeconds", "must be above 0 and at most 30")
        }
        guard resolvedTimeout >= resolvedConnectTimeout, resolvedTimeout <= 30 else {
            return ("timeoutSeconds", "must be at least connectTimeoutSeconds and at most 30")
        }
        guard (1...1000).contains(resolvedBreakerFailures) else { return ("breakerFailures", "must be between 1 and 1000") }
        guard resolvedBreakerCooldown > 0, resolvedBreakerCooldown <= 86400 else {
            return ("breakerCooldownSeconds", "must be above 0 and at most 86400")
        }
        guard (1...64).contains(resolvedMaxConcurrentCalls) else {
            return ("maxConcurrentCalls", "must be between 1 and 64")
        }
        if clientSecretFile != nil && clientSecretEnvironment != nil {
            return ("clientSecretFile", "give the secret by a file or by an environment variable, not both")
        }
        return nil
    }
}
