/// What a sign-in hands back (Janrain's and OAuth's `response_type`): tokens, a one-time authorization code, or both.
/// Clients list the ones they may use (`Client.responseTypes`, stored and sent by these names).
public enum ResponseType: String, Sendable, CaseIterable {
    case token
    case code
    /// The SDKs' choice when the app wants a code for its backend: the code and the tokens.
    case codeAndToken = "code_and_token"

    /// Reads a request's `response_type`; nil or empty is `fallback`.
    public init?(parameter: String?, fallback: ResponseType) {
        guard let parameter, !parameter.isEmpty else {
            self = fallback
            return
        }
        self.init(rawValue: parameter)
    }

    /// Names as settings, the admin API and storage give them, parsed once: a name that is not a response type (which
    /// `ClientRules.problem(withResponseType:)` refuses before) gives none.
    public static func list(_ names: [String]) -> [ResponseType] {
        names.compactMap(ResponseType.init(rawValue:))
    }

    /// The reply carries an access and a refresh token.
    public var issuesTokens: Bool { self != .code }
    /// The reply carries a one-time authorization code.
    public var issuesCode: Bool { self != .token }
}

extension ResponseType: Codable {
    /// A flow's `responseType` in Settings: a name that is not a response type is refused with the names it may be.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let value = ResponseType(rawValue: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be token, code or code_and_token")
        }
        self = value
    }

    /// An optional response type as storage keeps it: its name, or empty for none (a native sign-in's).
    public static func storedName(of value: ResponseType?) -> String { value?.rawValue ?? "" }

    /// Reads `storedName(of:)`; a name this build does not know is an error, never a guess.
    public static func stored(_ name: String) throws -> ResponseType? {
        if name.isEmpty { return nil }
        guard let value = ResponseType(rawValue: name) else {
            throw CaptureError.unexpected("a stored response type this build does not know: \(name)")
        }
        return value
    }
}

/// What `/oauth/token` is asked to exchange (RFC 6749 `grant_type`).
public enum GrantType: String, Sendable, CaseIterable {
    case authorizationCode = "authorization_code"
    case refreshToken = "refresh_token"
}
