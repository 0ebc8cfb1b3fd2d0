import Foundation

/// Janrain's client settings: free key → text pairs, the app's defaults and each client's own over them
/// (`ClientSettingsAccess`). The service reads the keys named here; any other key is kept and answered as given.
public enum ClientSettingKey {
    /// The name a client's mail goes by (`ClientPages.siteName`).
    public static let siteName = "site_name"
    /// The client's page a verification mail's link opens.
    public static let verifyEmailURL = "verify_email_url"
    /// The client's page a reset mail's link opens.
    public static let passwordRecoverURL = "password_recover_url"
    /// The flow a client's pages use when they name none, and its version (Janrain's names; kept for the pages).
    public static let defaultFlowName = "default_flow_name"
    public static let defaultFlowVersion = "default_flow_version"
    /// OpenID Connect client metadata (OpenID Connect Registration §2, RP-Initiated Logout §3.1): how the client's ID
    /// tokens are signed (`RS256`, the default, or `ES256`), and where logout may send the browser (absolute URIs
    /// separated by spaces, each compared exactly).
    public static let idTokenAlgorithm = "id_token_signed_response_alg"
    public static let postLogoutRedirectURIs = "post_logout_redirect_uris"
    /// The client's own sign-in page (a Janrain page through the drop-in loader) that `/oidc/authorize` opens instead
    /// of the service's flow page; on one of the client's origins, as its other pages.
    public static let oidcSignInURL = "oidc_sign_in_url"
    /// The keys whose values the service reads itself.
    public static let known: [String] = [
        siteName, verifyEmailURL, passwordRecoverURL, defaultFlowName, defaultFlowVersion, idTokenAlgorithm,
        postLogoutRedirectURIs, oidcSignInURL,
    ]
}

/// What a setting's key and value may be, checked on every path that writes one (service.json, `capturectl`, the
/// admin API, Janrain's `settings/*`).
public enum ClientSettingRules {
    public static let maxKeyLength = 100
    public static let maxValueLength = 4000
    /// How many settings one call may name (`settings/get_multi`, `settings/set_multi`).
    public static let maxItems = 100

    /// Why `key` cannot name a setting, or nil: 1-100 letters, digits, `_`, `-` or `.`.
    public static func problem(withKey key: String) -> String? {
        guard (1...maxKeyLength).contains(key.count),
            key.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0))
            })
        else { return "'\(key)' must be 1 to \(maxKeyLength) letters, digits, '_', '-' or '.'" }
        return nil
    }

    /// Why `value` cannot be `key`'s value for `client` (nil: the app's default), or nil. A page address must be on an
    /// origin the client names, so a mailed code never leads anywhere its registration does not; a default page
    /// address must be an absolute http(s) URL, and is used only for clients whose origins it is on
    /// (`ClientPages.init(items:of:)`).
    public static func problem(key: String, value: String, for client: Client?) -> String? {
        problem(key: key, value: value, origins: client.map { ($0.allowedOrigins, $0.redirectURIs) })
    }

    /// `problem(key:value:for:)` for a client pinned in service.json.
    public static func problem(key: String, value: String, for client: ClientSettings) -> String? {
        problem(key: key, value: value, origins: (client.allowedOrigins ?? [], client.redirectUris ?? []))
    }

    static func problem(key: String, value: String, origins: (allowed: [String], redirects: [String])?) -> String? {
        if let problem = problem(withKey: key) { return problem }
        guard value.count <= maxValueLength else { return "must be at most \(maxValueLength) characters" }
        switch key {
        case ClientSettingKey.siteName:
            return ClientPages.isDisplayName(value) ? nil : "must be 1 to 120 characters, none of them control characters"
        case ClientSettingKey.verifyEmailURL, ClientSettingKey.passwordRecoverURL, ClientSettingKey.oidcSignInURL:
            if let origins {
                return ClientPages.problem(withPage: value, allowedOrigins: origins.allowed, redirectURIs: origins.redirects)
            }
            return ExactURI(value) != nil && URLOrigin(value) != nil
                ? nil : "'\(value)' must be an absolute http(s) URL without a fragment"
        case ClientSettingKey.idTokenAlgorithm:
            return JWSAlgorithm(rawValue: value) != nil ? nil : "must be RS256 or ES256"
        case ClientSettingKey.postLogoutRedirectURIs:
            let uris = value.split(separator: " ").map(String.init)
            return uris.allSatisfy({ ExactURI($0) != nil || ClientRules.appReturnKey($0) != nil })
                ? nil : "must be absolute URIs without fragments, separated by spaces"
        default:
            return nil
        }
    }
}

extension ClientPages {
    /// The pages `items` (a client's settings over the defaults) give `client`: a name people can read, and page
    /// addresses only on the client's own origins. A value that does not qualify (a default on another client's
    /// origin) is left out, so the link opens the service's own flow page.
    public init(items: [String: String], of client: Client) {
        func page(_ key: String) -> String? {
            items[key].flatMap { ClientPages.problem(withPage: $0, of: client) == nil ? $0 : nil }
        }
        self.init(
            siteName: items[ClientSettingKey.siteName].flatMap { ClientPages.isDisplayName($0) ? $0 : nil },
            verifyEmailURL: page(ClientSettingKey.verifyEmailURL),
            passwordRecoverURL: page(ClientSettingKey.passwordRecoverURL))
    }
}
