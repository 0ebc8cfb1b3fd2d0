/// A call to Janrain's server-to-server API as the HTTP layer read it: the call's path, its parameters (without the
/// credentials), the credentials it presented and where it came from.
public struct ServerRequest: Sendable, Equatable {
    /// How a caller says who it is (JANRAIN-API.md §2).
    public enum Credentials: Sendable, Equatable {
        /// HTTP Basic `client_id:client_secret`, or the two as form parameters.
        case secret(clientID: String, secret: String)
        /// `Authorization: Signature client_id:signature` with the request's `Date`.
        case signed(clientID: String, signature: String, date: String)
        /// A user's access token (`Authorization: OAuth …`, `Bearer …` or `access_token`).
        case accessToken(String)
        /// `client_id` with a `creation_token` from `access/getCreationToken`: one `entity.create`, no secret.
        case creationToken(clientID: String, token: String)
        case none

        /// The client the credentials name (for a user's token, none).
        public var clientID: String? {
            switch self {
            case .secret(let id, _), .signed(let id, _, _), .creationToken(let id, _): id
            case .accessToken, .none: nil
            }
        }
    }

    /// The call's path as signed, e.g. `/entity.find`.
    public var path: String
    public var parameters: [String: String]
    public var credentials: Credentials
    public var remoteAddress: String?

    public init(path: String, parameters: [String: String], credentials: Credentials, remoteAddress: String?) {
        self.path = path
        self.parameters = parameters
        self.credentials = credentials
        self.remoteAddress = remoteAddress
    }

    /// The parameters that carry credentials; they are never part of what a signature covers.
    public static let credentialParameters: Set<String> = [
        "client_id", "client_secret", "access_token", "creation_token",
    ]
}

/// Who a server API call was made by.
public enum ServerCaller: Sendable {
    /// A client that proved its secret, with the features it holds.
    case client(Client)
    /// A user's access token: only that user's own record.
    case user(User, TokenRecord)

    /// The client the call is made by or, for a user's token, the client the token was issued to.
    public var clientID: String {
        switch self {
        case .client(let client): client.clientID
        case .user(_, let token): token.clientID
        }
    }

    public var auditActor: AuditActor { .client(clientID) }
}
