import Foundation

/// The on-disk shape of `service.json`; every key optional, defaults fill the rest.
struct ServiceSettingsFile: Decodable {
    var host: String?
    var port: Int?
    var database: String?
    var publicOrigin: String?
    var passkeyRpId: String?
    var appId: String?
    var accessTokenLifeHours: Double?
    var refreshTokenLifeDays: Double?
    var idTokenLifetimeSeconds: Int?
    var bcryptCost: Int?
    var maxBodyBytes: Int?
    var signInMaxFailures: Int?
    var signInWindowSeconds: Double?
    var signInMaxFailuresPerAddress: Int?
    var signInMaxConsecutiveFailures: Int?
    var registrationsPerAddress: Int?
    var trustedProxies: [String]?
    var resetCodeMinutes: Double?
    var verificationCodeHours: Double?
    var codeRequestsPerEmail: Int?
    var codeRequestsPerAddress: Int?
    var mail: MailFile?

    /// `mail`: the sender, the template directory and the SMTP relay (its password only from CAPTURE_SMTP_PASSWORD).
    struct MailFile: Decodable {
        var from: String?
        var templates: String?
        var smtp: SMTPFile?
    }

    struct SMTPFile: Decodable {
        var host: String
        var port: Int?
        var security: SMTPRelay.Security?
        var username: String?
        var caFile: String?
        var connectTimeoutSeconds: Double?
        var totalTimeoutSeconds: Double?
    }
    var webFlows: String?
    var themes: String?
    var clients: [ClientSettings]?
    var socialProviders: [SocialProviderSettings]?
    var legalDocuments: [LegalDocument]?
    var requestHeaderTimeoutSeconds: Double?
    var requestBodyTimeoutSeconds: Double?
    var idleTimeoutSeconds: Double?
    var maxConnections: Int?
    var auditRetentionDays: Double?
    var erasureGraceDays: Double?
    var adminHost: String?
    var adminPort: Int?
    var metricsEnabled: Bool?
    var metricsPublic: Bool?
    var proxyHeader: String?
    var codeKeyFile: String?
    var recentSignInMinutes: Double?
    var signedRequestWindowSeconds: Double?
    var addressRestoreHours: Double?
    var logFormat: String?
    var logLevel: String?
    var requestLogLevel: String?
    var purgeIntervalMinutes: Double?
    var shutdownGraceSeconds: Double?
    var legacyJanrain: LegacyJanrainSettings?
    var openIDConnect: OpenIDConnectSettings?
    var webhooks: WebhookSettings?
}

extension ServiceSettings {
    /// Reads `service.json`; relative `webFlows` resolves against the settings directory.
    public static func load(file url: URL) throws -> ServiceSettings {
        let raw: ServiceSettingsFile = try SettingsDecoding.decode(ServiceSettingsFile.self, from: url)
        var settings = ServiceSettings()
        let name = url.path
        if let host = raw.host { settings.host = host }
        if let port = raw.port { settings.port = port }
        if let database = raw.database { settings.database = database }
        settings.publicOrigin = raw.publicOrigin
        settings.passkeyRelyingPartyID = raw.passkeyRpId
        if let appId = raw.appId { settings.appID = appId }
        if let hours = raw.accessTokenLifeHours { settings.accessTokenLifeHours = hours }
        if let days = raw.refreshTokenLifeDays { settings.refreshTokenLifeDays = days }
        if let seconds = raw.idTokenLifetimeSeconds { settings.idTokenLifetimeSeconds = seconds }
        if let cost = raw.bcryptCost { settings.bcryptCost = cost }
        if let bytes = raw.maxBodyBytes { settings.maxBodyBytes = bytes }
        if let failures = raw.signInMaxFailures { settings.signInMaxFailures = failures }
        if let window = raw.signInWindowSeconds { settings.signInWindowSeconds = window }
        if let failures = raw.signInMaxFailuresPerAddress { settings.signInMaxFailuresPerAddress = failures }
        if let failures = raw.signInMaxConsecutiveFailures { settings.signInMaxConsecutiveFailures = failures }
        if let count = raw.registrationsPerAddress { settings.registrationsPerAddress = count }
        if let proxies = raw.trustedProxies { settings.trustedProxies = proxies }
        if let minutes = raw.resetCodeMinutes { settings.resetCodeMinutes = minutes }
        if let hours = raw.verificationCodeHours { settings.verificationCodeHours = hours }
        if let count = raw.codeRequestsPerEmail { settings.codeRequestsPerEmail = count }
        if let count = raw.codeRequestsPerAddress { settings.codeRequestsPerAddress = count }
        let base = url.deletingLastPathComponent()
        if let from = raw.mail?.from { settings.mailFrom = from }
        settings.mailTemplatesDirectory =
            URL(fileURLWithPath: raw.mail?.templates ?? "mail", relativeTo: base)
            .standardizedFileURL.path
        if let smtp = raw.mail?.smtp {
            let security = smtp.security ?? .startTLS
            settings.smtp = SMTPRelay(
                host: smtp.host, port: smtp.port ?? (security == .implicitTLS ? 465 : 587), security: security,
                username: smtp.username, from: settings.mailFrom, connectTimeoutSeconds: smtp.connectTimeoutSeconds ?? 10,
                totalTimeoutSeconds: smtp.totalTimeoutSeconds ?? 30, caFile: smtp.caFile)
        }
        settings.webFlowsDirectory =
            URL(fileURLWithPath: raw.webFlows ?? "../WebFlows", relativeTo: base)
            .standardizedFileURL.path
        settings.themesDirectory = URL(fileURLWithPath: raw.themes ?? "themes", relativeTo: base).standardizedFileURL.path
        settings.clients = raw.clients ?? []
        settings.socialProviders = raw.socialProviders ?? []
        settings.legalDocuments = raw.legalDocuments ?? []
        if let seconds = raw.requestHeaderTimeoutSeconds { settings.requestHeaderTimeoutSeconds = seconds }
        if let seconds = raw.requestBodyTimeoutSeconds { settings.requestBodyTimeoutSeconds = seconds }
        if let seconds = raw.idleTimeoutSeconds { settings.idleTimeoutSeconds = seconds }
        if let count = raw.maxConnections { settings.maxConnections = count }
        if let days = raw.auditRetentionDays { settings.auditRetentionDays = days }
        if let days = raw.erasureGraceDays { settings.erasureGraceDays = days }
        settings.adminHost = raw.adminHost
        settings.adminPort = raw.adminPort
        if let enabled = raw.metricsEnabled { settings.metricsEnabled = enabled }
        if let open = raw.metricsPublic { settings.metricsPublic = open }
        if let path = raw.codeKeyFile { settings.codeKeyFile = path }
        if let minutes = raw.recentSignInMinutes {
            guard minutes > 0 else {
                throw SettingsError(file: name, key: "recentSignInMinutes", problem: "must be more than 0, got \(minutes)")
            }
            settings.recentSignInMinutes = minutes
        }
        if let seconds = raw.signedRequestWindowSeconds {
            guard seconds > 0, seconds <= 3600 else {
                throw SettingsError(
                    file: name, key: "signedRequestWindowSeconds", problem: "must be more than 0 and at most 3600, got \(seconds)"
                )
            }
            settings.signedRequestWindowSeconds = seconds
        }
        if let hours = raw.addressRestoreHours {
            guard hours > 0 else {
                throw SettingsError(file: name, key: "addressRestoreHours", problem: "must be more than 0, got \(hours)")
            }
            settings.addressRestoreHours = hours
        }
        if let header = raw.proxyHeader {
            guard let chosen = TrustedProxies.Header.allCases.first(where: { $0.rawValue.lowercased() == header.lowercased() })
            else {
                throw SettingsError(
                    file: name, key: "proxyHeader", problem: "must be X-Forwarded-For or Forwarded, got '\(header)'")
            }
            settings.proxyHeader = chosen
        }
        if let format = raw.logFormat { settings.logFormat = try parseLogFormat(format, file: name, key: "logFormat") }
        if let level = raw.logLevel { settings.logLevel = try parseLogLevel(level, file: name, key: "logLevel") }
        if let level = raw.requestLogLevel {
            settings.requestLogLevel = try parseLogLevel(level, file: name, key: "requestLogLevel")
        }
        if let minutes = raw.purgeIntervalMinutes { settings.purgeIntervalMinutes = minutes }
        if let seconds = raw.shutdownGraceSeconds { settings.shutdownGraceSeconds = seconds }
        if var legacy = raw.legacyJanrain {
            legacy.clientSecretFile = legacy.clientSecretFile.map {
                URL(fileURLWithPath: $0, relativeTo: base).standardizedFileURL.path
            }
            settings.legacyJanrain = legacy
        }
        if let oidc = raw.openIDConnect { settings.openIDConnect = oidc }
        if let webhooks = raw.webhooks {
            if let found = webhooks.problem() { throw SettingsError(file: name, key: found.0, problem: found.1) }
            settings.webhooks = webhooks
        }
        try settings.validate(file: name)
        return settings
    }

    /// Checks ranges; called after every override too, so flags get the same scrutiny as the file.
    public func validate(file: String) throws {
        func fail(_ key: String, _ problem: String) -> SettingsError {
            SettingsError(file: file, key: key, problem: problem)
        }
        // 0: a free port the system picks, which the server logs ("capture-server listening on …") once it listens.
        guard (0...65535).contains(port) else { throw fail("port", "must be between 0 (any free port) and 65535, got \(port)") }
        guard !host.isEmpty else { throw fail("host", "must not be empty") }
        do { _ = try databaseLocation() } catch let error as SettingsError { throw fail("database", error.problem) }
        guard BcryptCost.range.contains(bcryptCost) else {
            throw fail("bcryptCost", "must be between 10 and 16, got \(bcryptCost)")
        }
        guard accessTokenLifeHours > 0, accessTokenLifeHours <= 24 * 30 else {
            throw fail("accessTokenLifeHours", "must be above 0 and at most 720")
        }
        guard refreshTokenLifeDays > 0 else { throw fail("refreshTokenLifeDays", "must be above 0") }
        guard (60...86400).contains(idTokenLifetimeSeconds) else {
            throw fail("idTokenLifetimeSeconds", "must be between 60 and 86400, got \(idTokenLifetimeSeconds)")
        }
        guard maxBodyBytes >= 1024 else { throw fail("maxBodyBytes", "must be at least 1024") }
        guard signInMaxFailures > 0 else { throw fail("signInMaxFailures", "must be above 0") }
        guard signInMaxFailuresPerAddress >= signInMaxFailures else {
            throw fail("signInMaxFailuresPerAddress", "must be at least signInMaxFailures (\(signInMaxFailures))")
        }
        // NIST SP 800-63B §5.2.2: no more than 100 consecutive failed attempts on one account.
        guard (1...100).contains(signInMaxConsecutiveFailures) else {
            throw fail("signInMaxConsecutiveFailures", "must be between 1 and 100, got \(signInMaxConsecutiveFailures)")
        }
        guard signInWindowSeconds > 0 else { throw fail("signInWindowSeconds", "must be above 0") }
        guard resetCodeMinutes > 0, resetCodeMinutes <= 24 * 60 else {
            throw fail("resetCodeMinutes", "must be above 0 and at most 1440")
        }
        guard verificationCodeHours > 0, verificationCodeHours <= 24 * 14 else {
            throw fail("verificationCodeHours", "must be above 0 and at most 336")
        }
        guard codeRequestsPerEmail > 0, codeRequestsPerAddress >= codeRequestsPerEmail else {
            throw fail("codeRequestsPerAddress", "codeRequestsPerEmail must be above 0 and at most codeRequestsPerAddress")
        }
        if let smtp {
            guard !smtp.host.isEmpty, (1...65535).contains(smtp.port) else {
                throw fail("mail.smtp", "needs a host and a port between 1 and 65535")
            }
            guard smtp.connectTimeoutSeconds > 0, smtp.totalTimeoutSeconds >= smtp.connectTimeoutSeconds else {
                throw fail("mail.smtp.totalTimeoutSeconds", "must be at least connectTimeoutSeconds, both above 0")
            }
        }
        guard registrationsPerAddress > 0 else { throw fail("registrationsPerAddress", "must be above 0") }
        for proxy in trustedProxies where TrustedProxies([proxy]) == nil {
            throw fail("trustedProxies", "'\(proxy)' is not an IP address or CIDR range such as 10.0.0.0/8")
        }
        if let origin = publicOrigin, URLOrigin(origin) == nil {
            throw fail("publicOrigin", "must be an http(s) origin such as https://id.example.com, got '\(origin)'")
        }
        if let rpID = passkeyRelyingPartyID, !AppAssociation.isRelyingPartyID(rpID, of: resolvedPublicOrigin) {
            throw fail("passkeyRpId", "must be the public origin's host or a suffix of it at a dot, got '\(rpID)'")
        }
        var seen = Set<String>()
        for (index, client) in clients.enumerated() {
            let key = "clients[\(index)]"
            guard ClientRules.isValidClientID(client.clientId) else {
                throw fail("\(key).clientId", "must be 3-64 characters of letters, digits, '-', '_' or '.'")
            }
            guard seen.insert(client.clientId).inserted else {
                throw fail("\(key).clientId", "duplicate client id '\(client.clientId)'")
            }
            for type in client.responseTypes ?? [] {
                if let problem = ClientRules.problem(withResponseType: type) { throw fail("\(key).responseTypes", problem) }
            }
            for uri in client.redirectUris ?? [] where !ClientRules.isValidRedirectPattern(uri) {
                throw fail("\(key).redirectUris", "'\(uri)' must be an absolute http(s) URL or a path starting with '/'")
            }
            for origin in client.allowedOrigins ?? [] where URLOrigin(origin) == nil {
                throw fail("\(key).allowedOrigins", "'\(origin)' is not an http(s) origin")
            }
            for (name, text) in [("pageTitle", client.pageTitle), ("siteName", client.siteName)] {
                if let text, !ClientPages.isDisplayName(text) {
                    throw fail("\(key).\(name)", "must be 1-120 characters without control characters")
                }
            }
            for (name, url) in [("verifyEmailUrl", client.verifyEmailUrl), ("passwordRecoverUrl", client.passwordRecoverUrl)] {
                if let url, let problem = ClientPages.problem(withPage: url, of: client) { throw fail("\(key).\(name)", problem) }
            }
            for (name, value) in (client.settings ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let problem = ClientSettingRules.problem(key: name, value: value, for: client) {
                    throw fail("\(key).settings.\(name)", problem)
                }
            }
            if let names = client.features, ClientFeature.parse(names) == nil {
                let known = ClientFeature.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("\(key).features", "names an unknown feature (known: \(known))")
            }
            if let whitelist = client.whitelist, let problem = ClientWhitelist.problem(with: whitelist) {
                throw fail("\(key).whitelist", problem)
            }
            if let (themeKey, problem) = client.theme?.problem() { throw fail("\(key).theme.\(themeKey)", problem) }
            if let (appKey, problem) = AppAssociation.problem(with: client) { throw fail("\(key).\(appKey)", problem) }
        }
        for (key, seconds) in [
            ("requestHeaderTimeoutSeconds", requestHeaderTimeoutSeconds),
            ("requestBodyTimeoutSeconds", requestBodyTimeoutSeconds),
            ("idleTimeoutSeconds", idleTimeoutSeconds),
        ] where !(seconds >= 0.1 && seconds <= 3600) {
            throw fail(key, "must be between 0.1 and 3600 seconds, got \(seconds)")
        }
        var providerNames = Set<String>()
        for (index, provider) in socialProviders.enumerated() {
            if let (key, problem) = provider.problem() { throw fail("socialProviders[\(index)].\(key)", problem) }
            guard providerNames.insert(provider.name).inserted else {
                throw fail("socialProviders[\(index)].name", "duplicate provider name '\(provider.name)'")
            }
        }
        var documentIDs = Set<String>()
        for (index, document) in legalDocuments.enumerated() {
            if let (key, problem) = document.problem() { throw fail("legalDocuments[\(index)].\(key)", problem) }
            guard documentIDs.insert(document.id).inserted else {
                throw fail("legalDocuments[\(index)].id", "duplicate document id '\(document.id)'")
            }
        }
        guard (1...100_000).contains(maxConnections) else {
            throw fail("maxConnections", "must be between 1 and 100000, got \(maxConnections)")
        }
        guard auditRetentionDays >= 0, auditRetentionDays <= 36500 else {
            throw fail("auditRetentionDays", "must be between 0 (keep for ever) and 36500, got \(auditRetentionDays)")
        }
        guard erasureGraceDays >= 0, erasureGraceDays <= 365 else {
            throw fail("erasureGraceDays", "must be between 0 (erase at once) and 365, got \(erasureGraceDays)")
        }
        if let adminPort {
            guard (0...65535).contains(adminPort) else {
                throw fail("adminPort", "must be between 0 and 65535, got \(adminPort)")
            }
            guard adminPort != port || adminPort == 0 else { throw fail("adminPort", "must differ from port (\(port))") }
        }
        if let adminHost, adminHost.isEmpty { throw fail("adminHost", "must not be empty") }
        try validateOperations(file: file)
        if let (key, problem) = legacyJanrain?.problem() { throw fail("legacyJanrain.\(key)", problem) }
        if let (key, problem) = openIDConnect.problem() { throw fail("openIDConnect.\(key)", problem) }
    }
}
