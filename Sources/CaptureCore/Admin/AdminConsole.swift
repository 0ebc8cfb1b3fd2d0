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
    /// Janrain's filter grammar (`entity.find`'s), run in the database; in order of Janrain's `id`.
    public var filter: String?
    public var page: Page

    public init(search: String? = nil, filter: String? = nil, page: Page = Page()) {
        self.search = search
        self.filter = filter
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
    /// Janrain's `site_name`, `verify_email_url`, `password_recover_url` (`ClientPages`), stored as its settings.
    public var pages = ClientPages()
    /// What it may call on Janrain's server API; nil: `login_client` only.
    public var features: Set<ClientFeature>?
    /// Addresses or CIDR ranges its server API calls may come from (`ClientWhitelist`); empty: anywhere.
    public var whitelist: [String] = []

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
    /// Replaces the client's features (Janrain's `clients/set_features`).
    public var features: Set<ClientFeature>?
    /// Replaces the client's whitelist; empty: anywhere.
    public var whitelist: [String]?

    public init() {}

    public var isEmpty: Bool {
        name == nil && redirectURIs == nil && allowedOrigins == nil && responseTypes == nil && legacyTokenURL == nil
            && siteName == nil && verifyEmailURL == nil && passwordRecoverURL == nil && features == nil && whitelist == nil
    }
}

/// Where the operator's verbs (`AdminOperations`) run, each answering with an admin view (`TokenView`, `UserView`,
/// `ClientView`, …), the types the admin API sends as JSON (`AdminViews`). Two implementations: `DatabaseAdminConsole`
/// on the database (the admin API's handlers, and capturectl on the file) and capturectl's remote one over the admin
/// API, so both modes print the same and exit alike.
public protocol AdminConsole: Sendable {
    func perform<Input, Output>(_ operation: AdminOperation<Input, Output>, _ input: Input) async throws -> Output
}

extension AdminConsole {
    /// `perform` for an operation that takes no input.
    public func perform<Output>(_ operation: AdminOperation<AdminNothing, Output>) async throws -> Output {
        try await perform(operation, AdminNothing())
    }
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
