/// RFC 6750 §3.1's refusals of a resource request (userinfo): the token is missing, unknown, expired or revoked; or it
/// was not issued with the scope the resource needs.
public enum BearerError: Error, Equatable, Sendable {
    case invalidToken
    case insufficientScope

    public var code: String {
        switch self {
        case .invalidToken: "invalid_token"
        case .insufficientScope: "insufficient_scope"
        }
    }

    public var status: Int {
        switch self {
        case .invalidToken: 401
        case .insufficientScope: 403
        }
    }

    public var description: String {
        switch self {
        case .invalidToken: "the access token is missing, invalid, expired or revoked"
        case .insufficientScope: "the access token was not issued with the openid scope"
        }
    }
}
