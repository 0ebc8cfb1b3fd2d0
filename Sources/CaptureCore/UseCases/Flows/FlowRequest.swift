import CaptureJSON

/// A form submission from a flow page or a native SDK: Janrain's common parameters plus the form's fields.
public struct FlowRequest: Sendable, Equatable {
    /// The parameter names that are not form fields.
    public static let commonParameters: Set<String> = [
        "client_id", "client_secret", "locale", "flow", "flow_version", "redirect_uri", "response_type", "form",
        "refresh_secret", "access_token", "code_challenge", "code_challenge_method",
        // Ours: the social sign-in's starter proves itself when it redeems the one-time token (InitiatorBinding).
        "code_verifier",
        // Sent by Janrain's SDKs: `flow_name` (older jump.ios, same as `flow`), `bp_channel` (Backplane, ignored),
        // `merge_token` (a social sign-in's token: the traditional sign-in that follows links the provider account),
        // `token` and `thin_registration` (`auth_native` / `register_native`), `registration_form` (`auth_native`:
        // the form a 310's `prereg_fields` are for).
        "flow_name", "bp_channel", "merge_token", "token", "thin_registration", "registration_form",
        // Ours: the device token the widget keeps (docs/adr/0022-sign-in-throttling.md); `reactivate`, a sign-in
        // that brings back an account its owner deleted (`AccountDeletion`).
        "device_token", "reactivate",
        // Ours: what stands in for a recent sign-in on a sensitive change (`StepUpRule`).
        "current_password", "second_factor_code",
        // Ours: the documents the person accepts (`LegalTerms`), as `id:version` separated by spaces.
        "accept_documents",
        // Ours: the sealed OpenID Connect authorization request the page signs in for (`AuthorizationRequest`).
        "oidc_request",
    ]

    public var clientID: String?
    public var clientSecret: String?
    public var flow: String?
    public var locale: String?
    public var redirectURI: String?
    public var responseType: String?
    public var form: String?
    public var refreshSecret: String?
    public var accessToken: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    /// `auth_native`, `register_native`, `link_account_native`, `merge_token`: the verifier of the social sign-in's
    /// start (InitiatorBinding).
    public var codeVerifier: String?
    /// A device token from an earlier sign-in; present but empty asks for one.
    public var deviceToken: String?
    /// `auth_native` / `register_native`: the one-time token of a social sign-in.
    public var socialToken: String?
    /// A traditional sign-in that completes a merge: the social sign-in's token whose account to link.
    public var mergeToken: String?
    /// `auth_native`: create the account from the provider's profile when nothing the schema requires is missing.
    public var thinRegistration: Bool
    /// `auth_native`: the social registration form the app will submit after a 310 (jump.ios and jump.android send
    /// their configured `captureSocialRegistrationFormName`).
    public var registrationForm: String?
    /// A sign-in that brings back the account its owner deleted, within the grace period (`reactivate=true`).
    public var reactivate: Bool
    /// `accept_documents`: the documents (`id:version`) the person accepts with this registration or sign-in.
    public var acceptDocuments: String?
    /// `oidc_request`: the sealed OpenID Connect authorization request this sign-in completes.
    public var oidcRequest: String?
    public var fields: [String: String]
    /// `current_password` and `second_factor_code`: what stands in for a recent sign-in on a sensitive change.
    public var stepUp: StepUpProof
    /// The caller's network address, for throttling.
    public var remoteAddress: String?
    /// The `Accept-Language` header: the language of messages when `locale` names none we have.
    public var acceptLanguage: String?
    /// The `User-Agent` header: where a session's device hint comes from (`DeviceHint`).
    public var userAgent: String?
    /// The `Origin` of a browser page on another origin than the service's that sent this request (CSRF check).
    public var crossOrigin: String?

    public init(parameters: [String: String], remoteAddress: String? = nil, crossOrigin: String? = nil) {
        clientID = parameters["client_id"]
        clientSecret = parameters["client_secret"]
        flow = parameters["flow"] ?? parameters["flow_name"]
        locale = parameters["locale"]
        redirectURI = parameters["redirect_uri"]
        responseType = parameters["response_type"]
        form = parameters["form"]
        refreshSecret = parameters["refresh_secret"]
        accessToken = parameters["access_token"]
        codeChallenge = parameters["code_challenge"]
        codeChallengeMethod = parameters["code_challenge_method"]
        deviceToken = parameters["device_token"]
        codeVerifier = parameters["code_verifier"].flatMap { $0.isEmpty ? nil : $0 }
        socialToken = parameters["token"]
        oidcRequest = parameters["oidc_request"].flatMap { $0.isEmpty ? nil : $0 }
        mergeToken = parameters["merge_token"].flatMap { $0.isEmpty ? nil : $0 }
        thinRegistration = ["true", "1"].contains(parameters["thin_registration"]?.lowercased() ?? "")
        registrationForm = parameters["registration_form"].flatMap { $0.isEmpty ? nil : $0 }
        reactivate = ["true", "1"].contains(parameters["reactivate"]?.lowercased() ?? "")
        acceptDocuments = parameters["accept_documents"]
        fields = parameters.filter { !Self.commonParameters.contains($0.key) }
        stepUp = StepUpProof(parameters, remoteAddress: remoteAddress)
        self.remoteAddress = remoteAddress
        self.crossOrigin = crossOrigin
    }
}

/// Tokens handed out by a sign-in, registration or refresh. Only the caller ever sees them.
public struct IssuedGrant: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresIn: Int
    public var tokenType = "Bearer"
    /// The chain the tokens continue and its scope, when they were redeemed from a code or a refresh token (what an
    /// OpenID Connect client's ID token is made from); not part of the reply.
    public var chainID: String?
    public var scope = ""

    /// RFC 6749 §5.1's token members: the one place a grant's reply is spelled, for `/oauth/token` and for the
    /// sign-in and registration replies that carry tokens.
    public var replyFields: [String: JSONValue] {
        [
            "access_token": .string(accessToken), "token_type": .string(tokenType),
            "expires_in": .int(Int64(expiresIn)), "refresh_token": .string(refreshToken),
        ]
    }
}

/// The outcome of a traditional sign-in or registration: tokens (`response_type` `token`), a one-time
/// authorization code (`code`), or both (`code_and_token`).
public struct AuthResult: Sendable, Equatable {
    public var user: User
    public var isNew: Bool
    public var grant: IssuedGrant?
    public var authorizationCode: String?
    /// Comes with `authorizationCode`: revokes the code's chain (and the tokens it is exchanged for) at
    /// `/oauth/revoke`, and does nothing else. Lets a page that holds no token sign out.
    public var signOutToken: String?
    /// A new device token, when the caller asked for one and had none valid for this account.
    public var deviceToken: String?
    /// A sign-in for an OpenID Connect client: where the browser goes now (the client's redirect URI with the code),
    /// and the browser session to keep in its cookie (`BrowserSession`, sealed).
    public var authorizationRedirect: String?
    public var browserSession: String?
}

/// The client, flow and form a submission is about, after checking them.
struct FlowContext: Sendable {
    var client: Client
    var flow: FlowDefinition
    var form: String
    var responseType: ResponseType
    /// Where an authorization code may be redeemed (origin + path of the checked `redirect_uri`).
    var redirectURI: String?
    /// The PKCE S256 challenge a code is bound to.
    var codeChallenge: String?
    /// The sign-in brings back an account its owner deleted (`FlowRequest.reactivate`).
    var reactivates = false
    /// The device the sign-in comes from (`DeviceHint`), kept on its tokens.
    var device: String?
    /// What a sign-in that stops for the documents resumes with (`FlowRequest.resumable`), in which language it
    /// names them, and the documents the caller accepts (`accept_documents`).
    var resumable: [String: String] = [:]
    var locale: String?
    var acceptedDocuments: Set<String> = []
    /// The OpenID Connect authorization request this sign-in completes (`oidc_request`): the code goes to its client.
    var authorization: AuthorizationRequest?
    /// How the person proved themselves beyond `provider` (`AuthenticationMethods`).
    var secondFactorUsed = false
    var syncedPasskey = false
}
