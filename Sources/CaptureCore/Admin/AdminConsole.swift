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

    public init(id: String) { self.id = id }
}

/// What to change of a client; nil leaves a value as it is.
public struct ClientChange: Sendable, Equatable {
    public var name: String?
    public var redirectURIs: [String]?
    public var allowedOrigins: [String]?
    public var responseTypes: [String]?
    public var legacyTokenURL: Bool?

    public init() {}

    public var isEmpty: Bool {
        name == nil && redirectURIs == nil && allowedOrigins == nil && responseTypes == nil && legacyTokenURL == nil
    }
}

/// The operator's verbs, each answering with the admin API's JSON document (`AdminDocuments`). Two
/// implementations: `DatabaseAdminConsole` on the database (the admin API's handlers, and capturectl on the file)
/// and capturectl's remote one over the admin API, so both modes print the same and exit alike.
public protocol AdminConsole: Sendable {
    func tokens(_ query: TokenQuery) async throws -> AdminList
    func token(_ reference: String) async throws -> JSONValue
    /// `{"revoked": n}`; a refresh token takes its chain.
    func revokeToken(_ reference: String) async throws -> JSONValue
    /// Signs the user out everywhere: every token of theirs revoked, `{"revoked": n}`.
    func revokeTokens(ofUser reference: String) async throws -> JSONValue
    func revokeTokens(ofClient id: String) async throws -> JSONValue
    /// RFC 7662's fields (and the fingerprint) of a presented token, or `{"active": false}`.
    func introspect(_ token: String) async throws -> JSONValue
    func purgeExpiredTokens() async throws -> JSONValue

    func users(_ query: UserQuery) async throws -> AdminList
    /// With `linked_accounts`.
    func user(_ reference: String) async throws -> JSONValue
    func setDisabled(_ reference: String, _ disabled: Bool) async throws -> JSONValue
    func deleteUser(_ reference: String) async throws -> JSONValue

    func clients() async throws -> AdminList
    func client(_ id: String) async throws -> JSONValue
    /// With `client_secret` once for a confidential client.
    func addClient(_ draft: ClientDraft) async throws -> JSONValue
    func updateClient(_ id: String, _ change: ClientChange) async throws -> JSONValue
    /// `{"removed": id, "revoked": n}`.
    func removeClient(_ id: String) async throws -> JSONValue
    /// `{"client_id", "client_secret"}`, the secret shown once.
    func rotateClientSecret(_ id: String) async throws -> JSONValue

    func audit(_ filter: AuditFilter) async throws -> AdminList
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
