import CaptureJSON

/// Which tokens an operator asks for: by user (id or address), client, kind and state, a page at a time.
/// Values are as typed; the console checks them, so both of capturectl's modes refuse the same input alike.
public struct TokenQuery: Sendable, Equatable {
    public var user: String?
    public var client: String?
    public var kind: String?
    public var state: String?
    public var page: Page

    public init(user: String? = nil, client: String? = nil, kind: String? = nil, state: String? = nil, page: Page = Page()) {
        self.user = user
        self.client = client
        self.kind = kind
        self.state = state
        self.page = page
    }
}

public struct UserQuery: Sendable, Equatable {
    /// A part of the address or display name.
    public var search: String?
    public var page: Page

    public init(search: String? = nil, page: Page = Page()) {
        self.search = search
        self.page = page
    }
}

/// A client to register.
public struct ClientDraft: Sendable, Equatable {
    public var id: String
    public var name: String?
    public var confidential = false
    public var redirectURIs: [String] = []
    public var allowedOrigins: [String] = []
    public var responseTypes: [String] = []
    public var legacyTokenURL = false
    /// Janrain's `site_name`, `verify_email_url`, `password_recover_url` (`ClientPages`).
    public var pages = ClientPages()

    public init(id: String) { self.id = id }
}

/// What to change of a client; nil leaves a value as it is.
public struct ClientChange: Sendable, Equatable {
    public var name: String?
    public var redirectURIs: [String]?
    public var allowedOrigins: [String]?
    public var responseTypes: [String]?
    public var legacyTokenURL: Bool?
    /// Janrain's `site_name`, `verify_email_url`, `password_recover_url`: each set when not nil, cleared when empty.
    public var siteName: String?
    public var verifyEmailURL: String?
    public var passwordRecoverURL: String?

    public init() {}

    public var isEmpty: Bool {
        name == nil && redirectURIs == nil && allowedOrigins == nil && responseTypes == nil && legacyTokenURL == nil
            && siteName == nil && verifyEmailURL == nil && passwordRecoverURL == nil
    }
}

/// The operator's verbs, each answering with an admin view (`TokenView`, `UserView`, `ClientView`, …), the types
/// the admin API sends as JSON (`AdminViews`). Two implementations: `DatabaseAdminConsole` on the database (the admin
/// API's handlers, and capturectl on the file) and capturectl's remote one over the admin API, so both modes print
/// the same and exit alike.
public protocol AdminConsole: Sendable {
    func tokens(_ query: TokenQuery) async throws -> AdminList<TokenView>
    func token(_ reference: String) async throws -> TokenView
    /// A refresh token takes its chain.
    func revokeToken(_ reference: String) async throws -> RevocationView
    /// Signs the user out everywhere: every token of theirs revoked.
    func revokeTokens(ofUser reference: String) async throws -> RevocationView
    func revokeTokens(ofClient id: String) async throws -> RevocationView
    /// RFC 7662's fields (and the fingerprint) of a presented token, or `active: false` alone.
    func introspect(_ token: String) async throws -> IntrospectionView
    func purgeExpiredTokens() async throws -> PurgeView

    func users(_ query: UserQuery) async throws -> AdminList<UserView>
    /// With `linkedAccounts`.
    func user(_ reference: String) async throws -> UserView
    func setDisabled(_ reference: String, _ disabled: Bool) async throws -> UserView
    func deleteUser(_ reference: String) async throws -> DeletedUserView
    /// The owner's deletion, on their behalf: deactivated now, erased after the grace period.
    func deactivateUser(_ reference: String) async throws -> UserView
    /// Takes back a deletion: active again, no longer due for erasure.
    func reactivateUser(_ reference: String) async throws -> UserView
    /// Removes every passkey and the second factor of an account whose owner lost them (the password stays).
    func resetFactors(_ reference: String) async throws -> FactorsResetView
    /// Everything kept about the user (`AccountExport`), to answer their request for it.
    func exportUser(_ reference: String) async throws -> AccountExport

    func clients() async throws -> AdminList<ClientView>
    func client(_ id: String) async throws -> ClientView
    /// With `clientSecret` once for a confidential client.
    func addClient(_ draft: ClientDraft) async throws -> ClientView
    func updateClient(_ id: String, _ change: ClientChange) async throws -> ClientView
    func removeClient(_ id: String) async throws -> RemovedClientView
    /// The secret shown once.
    func rotateClientSecret(_ id: String) async throws -> ClientSecretView

    func audit(_ filter: AuditFilter) async throws -> AdminList<AuditEntryView>
}

extension TokenQuery {
    /// The kind and state as Core's values; an unknown name is refused naming the parameter.
    func checked() throws -> (kind: TokenKind?, state: TokenState?) {
        var kind: TokenKind?
        var state: TokenState?
        if let name = self.kind, !name.isEmpty {
            guard let value = TokenKind(rawValue: name) else {
                throw CaptureError.invalidArgument(
                    "kind", "'\(name)' is not one of \(TokenKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            kind = value
        }
        if let name = self.state, !name.isEmpty {
            guard let value = TokenState(rawValue: name) else {
                throw CaptureError.invalidArgument(
                    "state", "'\(name)' is not one of \(TokenState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            state = value
        }
        return (kind, state)
    }
}
