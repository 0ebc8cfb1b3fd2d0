import Foundation
import Logging

/// Typed service configuration, parsed once at start-up from `Settings/service.json`.
public struct ServiceSettings: Sendable, Equatable {
    public static let defaultDatabase = ".data/capture.sqlite"

    public var host = "127.0.0.1"
    public var port = 8080
    /// A SQLite file path or a database URL (`DatabaseLocation`): `database` in the file, `--db`, `CAPTURE_DB`.
    public var database = ServiceSettings.defaultDatabase
    /// The origin pages and clients see; defaults to `http://host:port`.
    public var publicOrigin: String?
    public var appID = "capture-bridge"
    public var accessTokenLifeHours = 1.0
    public var refreshTokenLifeDays = 30.0
    /// How long an OpenID Connect ID token is valid (its `exp`); a rotated signing key stays published this long
    /// (and five minutes) after its replacement takes over (`SigningKeys`).
    public var idTokenLifetimeSeconds = 3600
    public var bcryptCost = 12
    public var maxBodyBytes = 1_048_576
    /// Failed sign-ins per account and source (a device of the owner's, else an address) per window.
    public var signInMaxFailures = 10
    /// Failed sign-ins per network address over all accounts per window (carrier NAT shares addresses).
    public var signInMaxFailuresPerAddress = 100
    /// Consecutive failures after which an account takes passwords only from its owner's devices and addresses.
    public var signInMaxConsecutiveFailures = 100
    public var signInWindowSeconds = 900.0
    /// Registration attempts per network address per sign-in window.
    public var registrationsPerAddress = 20
    /// Proxies whose `Forwarded` / `X-Forwarded-*` headers are believed: addresses or CIDR ranges.
    public var trustedProxies: [String] = []
    /// How long a password-reset code works, and a verification code.
    public var resetCodeMinutes = 30.0
    public var verificationCodeHours = 24.0
    /// Code requests (reset, verification) per email address and per network address per sign-in window.
    public var codeRequestsPerEmail = 5
    public var codeRequestsPerAddress = 20
    /// The sender of the service's messages.
    public var mailFrom = "capture-bridge <no-reply@localhost>"
    /// The relay messages go out through; nil keeps them in the outbox (`capturectl mail`).
    public var smtp: SMTPRelay?
    /// Directory holding the message templates (`<kind>.txt`, `<kind>.html`, optionally `<kind>.<locale>.txt`).
    public var mailTemplatesDirectory = "Settings/mail"
    /// Directory holding `pages/` and `assets/`.
    public var webFlowsDirectory = "WebFlows"
    /// Directory holding the clients' theme files (logos, extra stylesheets); docs/themes.md.
    public var themesDirectory = "Settings/themes"
    public var clients: [ClientSettings] = []
    /// The WebAuthn relying party id passkeys are made for: the public origin's host unless set (a registrable
    /// suffix of it, such as `example.com` for `https://id.example.com`).
    public var passkeyRelyingPartyID: String?
    /// Social sign-in providers, in the order the sign-in screens list them.
    public var socialProviders: [SocialProviderSettings] = []
    /// The documents people accept to use a client (`LegalDocument`), recorded in the record's `legalAcceptances`.
    public var legalDocuments: [LegalDocument] = []
    /// Each provider's client secret by provider name, from the environment (never from the file).
    public var providerSecrets: [String: String] = [:]
    /// From connection open (or the first byte of a later request) until the request head is complete.
    public var requestHeaderTimeoutSeconds = 10.0
    /// From a request head until the end of its body.
    public var requestBodyTimeoutSeconds = 30.0
    /// A kept-alive connection with no request in progress is closed after this long.
    public var idleTimeoutSeconds = 60.0
    /// Connections held at once; further ones wait in the kernel's accept queue until one closes.
    public var maxConnections = 1024
    /// Audit rows older than this many days are purged (0 keeps them for ever).
    public var auditRetentionDays = 90.0
    /// How webhook events are delivered (`webhooks` in service.json).
    public var webhooks = WebhookSettings()
    /// Days between a person's deletion of their account and its erasure, during which they may reactivate it
    /// (0 erases at once).
    public var erasureGraceDays = 30.0
    /// A second listener for `/admin/v1/…` (and nothing else); nil serves the admin API on the main listener.
    public var adminPort: Int?
    /// The address the admin listener binds; defaults to `host`.
    public var adminHost: String?
    /// Operations (docs/adr/0033-metrics-and-logs.md, 0037-background-purge.md): `GET /metrics` served or not; the log
    /// lines' format and least level (`CAPTURE_LOG_FORMAT`, `CAPTURE_LOG_LEVEL`); the level of the per-request
    /// line (debug: off at the default `logLevel`, so a busy service formats no line per request unless asked);
    /// minutes between purges of expired rows (0: none).
    public var metricsEnabled = true
    /// `/metrics` on the main listener without an admin key. Off: there it needs one (the admin listener, when
    /// `adminPort` is set, serves it to whoever reaches that private listener).
    public var metricsPublic = false
    /// The file the one-time codes' key is kept in (`CodeKey`), unless `CAPTURE_CODE_KEY` gives it.
    public var codeKeyFile = ".data/code.key"
    /// How recent the sign-in behind a session must be for it to change the account's address.
    public var recentSignInMinutes = 10.0
    /// How far a Janrain-signed server API call's `Date` may be from the service's clock, either way.
    public var signedRequestWindowSeconds = 300.0
    /// How long the old address's link can undo an address change.
    public var addressRestoreHours = 72.0
    /// The one forwarding header `trustedProxies` write (`X-Forwarded-For` or `Forwarded`); the other is ignored.
    public var proxyHeader = TrustedProxies.Header.xForwardedFor
    public var logFormat = LogFormat.text
    public var logLevel = Logger.Level.info
    public var requestLogLevel = Logger.Level.debug
    public var purgeIntervalMinutes = 60.0
    /// How long a SIGTERM or SIGINT waits for requests in flight and the background work to finish before they are
    /// cancelled; the process ends within this and one more second, whatever its database connections are doing.
    public var shutdownGraceSeconds = 10.0
    /// The Janrain app being replaced, asked at sign-in until its cutover (`LegacyJanrainSettings`); nil: never. Its
    /// client secret is read only where the server starts (`LegacyJanrainSecret`), so capturectl never needs it.
    public var legacyJanrain: LegacyJanrainSettings?
    /// The OpenID Connect provider's claims, Hosted Login paths and browser sessions (`OpenIDConnectSettings`).
    public var openIDConnect = OpenIDConnectSettings()

    public init() {}

    public var resolvedPublicOrigin: String {
        publicOrigin ?? "http://\(host):\(port)"
    }

    /// `host[:port]` of the public origin: the `issuer` of `/verify` receipts (BrowserID named issuers by host).
    /// Every `/verify` names it: the origin is parsed once (`URLOrigin.reused`).
    public var issuerHost: String {
        URLOrigin.reused(resolvedPublicOrigin)?.authority ?? host
    }

    public var accessTokenLifetime: TimeInterval { accessTokenLifeHours * 3600 }
    public var refreshTokenLifetime: TimeInterval { refreshTokenLifeDays * 86400 }
    public var idTokenLifetime: TimeInterval { TimeInterval(idTokenLifetimeSeconds) }
}

/// A client as written in settings (the demo client, and any an operator pins there).
public struct ClientSettings: Sendable, Equatable, Codable {
    public var clientId: String
    public var name: String?
    public var secret: String?
    public var redirectUris: [String]?
    public var allowedOrigins: [String]?
    public var responseTypes: [String]?
    public var legacyTokenUrl: Bool?
    public var accessTokenLifeHours: Double?
    public var keepSessionsOnPasswordChange: Bool?
    public var requireVerifiedEmail: Bool?
    public var allowUnverifiedEmail: Bool?
    /// The client's look on the flow pages (docs/themes.md).
    public var theme: ClientThemeSettings?
    /// Replaces the flow's title in the pages' `<title>` for this client.
    public var pageTitle: String?
    /// The client's own pages, as Janrain's client settings named them (`site_name`, `verify_email_url`,
    /// `password_recover_url`): the name its mail goes by, and the pages its mailed links open (ClientPages).
    public var siteName: String?
    public var verifyEmailUrl: String?
    public var passwordRecoverUrl: String?
    /// Janrain's client settings beyond those three (`default_flow_name`, or any key its pages read), seeding the
    /// stored ones (`ClientSettingsAccess`).
    public var settings: [String: String]?
    /// What it may call on Janrain's server API (`ClientFeature` names); absent: as stored, `login_client` when new.
    public var features: [String]?
    /// Addresses or CIDR ranges its server API calls may come from (`ClientWhitelist`); absent: as stored.
    public var whitelist: [String]?
    /// The client's iOS apps as `TEAMID.bundle.id`: listed in `apple-app-site-association`'s `webcredentials`.
    public var iosAppIds: [String]?
    /// The client's Android apps: listed in `assetlinks.json`, and their signing keys' origins accepted by passkeys.
    public var androidApps: [AndroidAppSettings]?
    /// Every account signing in through this client needs a second factor (SDK-era apps get a clear error).
    public var requireSecondFactor: Bool?

    public init(clientId: String) {
        self.clientId = clientId
    }

    /// The client settings this entry pins: `settings`, then `siteName`, `verifyEmailUrl`, `passwordRecoverUrl` over
    /// the same keys in it.
    public var seedSettings: [String: String] {
        (settings ?? [:]).merging(ClientPages(self).janrainClientSettings) { _, named in named }
    }
}
