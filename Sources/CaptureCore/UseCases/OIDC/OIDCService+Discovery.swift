import CaptureJSON

/// The addresses one issuer's endpoints answer at: the service's own (`/oidc/…`, `/oauth/…`), or Akamai Hosted
/// Login's under `/{customer_id}/` for apps and sites built for it.
public struct OIDCEndpoints: Sendable, Equatable {
    public var issuer: String
    public var authorization: String
    public var token: String
    public var userinfo: String
    public var jwks: String
    public var endSession: String
    public var revocation: String
    public var introspection: String

    public static func service(origin: String) -> OIDCEndpoints {
        OIDCEndpoints(
            issuer: origin, authorization: origin + "/oidc/authorize", token: origin + "/oauth/token",
            userinfo: origin + "/oidc/userinfo", jwks: origin + "/oidc/jwks", endSession: origin + "/oidc/logout",
            revocation: origin + "/oauth/revoke", introspection: origin + "/oauth/introspect")
    }

    public static func hostedLogin(origin: String, customerID: String) -> OIDCEndpoints {
        let login = origin + "/" + customerID + "/login"
        return OIDCEndpoints(
            issuer: login, authorization: login + "/authorize", token: login + "/token",
            userinfo: origin + "/" + customerID + "/profiles/oidc/userinfo", jwks: login + "/jwk",
            endSession: login + "/end-session", revocation: login + "/token/revoke",
            introspection: login + "/token/introspect")
    }
}

extension OIDCService {
    /// The endpoints of every issuer this service answers as.
    public var endpointSets: [OIDCEndpoints] {
        let origin = settings.resolvedPublicOrigin
        var sets = [OIDCEndpoints.service(origin: origin)]
        if let customer = settings.openIDConnect.hostedLoginCustomerId {
            sets.append(.hostedLogin(origin: origin, customerID: customer))
        }
        return sets
    }

    /// OpenID Connect Discovery 1.0 §3 for one issuer: only what works is listed.
    public func discovery(_ endpoints: OIDCEndpoints) -> JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        let clientAuth = strings(["client_secret_basic", "client_secret_post", "none"])
        return .object([
            "issuer": .string(endpoints.issuer),
            "authorization_endpoint": .string(endpoints.authorization),
            "token_endpoint": .string(endpoints.token),
            "userinfo_endpoint": .string(endpoints.userinfo),
            "jwks_uri": .string(endpoints.jwks),
            "end_session_endpoint": .string(endpoints.endSession),
            "revocation_endpoint": .string(endpoints.revocation),
            "introspection_endpoint": .string(endpoints.introspection),
            "scopes_supported": strings(claims.supportedScopes),
            "claims_supported": strings(claims.supportedClaims),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": strings(JWSAlgorithm.allCases.map(\.rawValue)),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": clientAuth,
            "revocation_endpoint_auth_methods_supported": clientAuth,
            "introspection_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post"]),
            "prompt_values_supported": strings(["none", "login", "consent", "select_account"]),
            "claims_parameter_supported": false,
            "request_parameter_supported": false,
            "request_uri_parameter_supported": false,
            "authorization_response_iss_parameter_supported": true,
            "ui_locales_supported": strings(catalog.localization.tags),
        ])
    }
}
