import Foundation

/// Every failure a use case reports; the HTTP layer maps each to the contract's shape in one place.
public enum CaptureError: Error, Equatable, Sendable {
    case missingArgument(String)
    case invalidArgument(String, String)
    /// The request itself cannot be read (form or JSON encoding, UTF-8, a query string): HTTP 400.
    case malformedRequest(String, String)
    case invalidCredentials
    case recordNotFound(String)
    case emailAddressInUse(field: String)
    case invalidFormFields([String: [String]])
    /// A value the entity schema refuses (Janrain's 223 and 340–379).
    case schemaViolation(SchemaViolation)
    /// A social sign-in for a provider account with no user yet: the registration form, prefilled (Janrain 310).
    case registrationRequired(prefill: [String: String])
    /// A social sign-in whose address belongs to an account of ours: sign in to it to link the two (Janrain 380).
    /// `email` is that address (the provider's own claim, told back to whoever holds the provider's token), so the
    /// merge screen can fill it in.
    case mergeRequired(existingProvider: String, email: String? = nil)
    case invalidClient
    /// An admin API call without a valid admin key (missing, malformed, unknown or revoked: one answer for all).
    case adminKeyRequired
    case notPermitted(String)
    /// A sensitive change (`SensitiveChange`) from a session whose sign-in is not recent, without the current password
    /// (and second factor code) that would stand in for one (`StepUpRule`): sign in again. `minutes` is the window.
    case recentSignInRequired(SensitiveChange, minutes: Int)
    case accountDeactivated
    /// The account's owner deleted it: refused like a deactivated one, with the time until which a sign-in with
    /// `reactivate` brings it back (`AccountDeletion`).
    case accountDeleted(reactivateUntil: Date)
    /// The client lets only verified addresses sign in, and this one is not verified yet.
    case emailNotVerified
    case accessTokenExpired
    case invalidAccessToken
    case invalidGrant(String)
    case authorizationCodeExpired
    case redirectURIMismatch(expected: String, supplied: String)
    case rateLimited
    /// The password was right and the account has a second factor: the ticket an authenticator or recovery code
    /// completes the sign-in with (`/oauth/auth_native_second_factor`).
    case secondFactorRequired(ticket: String)
    /// The client requires a second factor and the account has none set up.
    case secondFactorSetupRequired
    /// The client requires documents (`LegalDocument`) the person has not accepted in their current version: the
    /// documents to show, and for a completed sign-in the ticket `/oauth/accept_terms` finishes it with (nil when a
    /// registration refuses before making the account).
    case termsNotAccepted(ticket: String?, documents: [AgreementDocument])
    /// An authenticator or recovery code that is wrong, used already, or for a ticket that is gone.
    case invalidSecondFactor
    case requestTooLarge(limit: Int)
    case unsupportedContentType(String)
    case unsupportedGrantType(String)
    /// The database cannot be reached for a moment (restarting, failing over, out of connections): nothing was
    /// acknowledged, and the same request may be sent again shortly. HTTP 503 with `Retry-After`.
    case storageUnavailable
    /// A filter (`entity.find`, `entity.count`) uses an operator Janrain removed from its grammar (`contains`):
    /// Janrain's 485.
    case filterOperatorRemoved(String)
    /// A call named one thing two ways (`uuid` and `id`): Janrain's 201, naming the second.
    case duplicateArgument(String, String)
    case unexpected(String)

    /// Janrain's numeric error code.
    public var code: Int {
        switch self {
        case .missingArgument: 100
        case .invalidArgument, .malformedRequest, .invalidAccessToken, .invalidGrant, .requestTooLarge, .unsupportedContentType,
            .unsupportedGrantType:
            200
        case .emailNotVerified: 112
        case .invalidCredentials, .invalidSecondFactor: 210
        case .secondFactorRequired: 270
        case .secondFactorSetupRequired: 271
        case .termsNotAccepted: 280
        case .recordNotFound: 310
        case .emailAddressInUse: 380
        case .invalidFormFields: 390
        case .schemaViolation(let violation): violation.code
        case .registrationRequired: 310
        case .mergeRequired: 380
        case .invalidClient, .adminKeyRequired: 402
        case .notPermitted, .recentSignInRequired, .accountDeactivated, .accountDeleted: 403
        case .accessTokenExpired: 414
        case .authorizationCodeExpired: 415
        case .redirectURIMismatch: 420
        case .unexpected: 500
        case .storageUnavailable: 503
        case .rateLimited: 510
        case .filterOperatorRemoved: 485
        case .duplicateArgument: 201
        }
    }

    /// Janrain's short error name.
    public var error: String {
        switch self {
        case .missingArgument: "missing_argument"
        case .invalidArgument, .malformedRequest: "invalid_argument"
        case .invalidAccessToken: "invalid_access_token"
        case .invalidGrant: "invalid_grant"
        case .invalidCredentials: "invalid_credentials"
        case .invalidSecondFactor: "invalid_second_factor"
        case .secondFactorRequired: "second_factor_required"
        case .secondFactorSetupRequired: "second_factor_setup_required"
        case .termsNotAccepted: "terms_not_accepted"
        case .recordNotFound: "record_not_found"
        case .emailAddressInUse: "email_address_in_use"
        case .invalidFormFields: "invalid_form_fields"
        case .schemaViolation(let violation): violation.error
        case .registrationRequired: "record_not_found"
        case .mergeRequired: "email_address_in_use"
        case .invalidClient: "invalid_client"
        case .adminKeyRequired: "invalid_admin_key"
        case .notPermitted: "access_denied"
        case .recentSignInRequired: "recent_sign_in_required"
        case .accountDeactivated, .accountDeleted: "account_deactivated"
        case .emailNotVerified: "email_not_verified"
        case .accessTokenExpired: "access_token_expired"
        case .authorizationCodeExpired: "authorization_code_expired"
        case .redirectURIMismatch: "redirect_uri_mismatch"
        case .unexpected: "unexpected_error"
        case .storageUnavailable: "service_unavailable"
        case .rateLimited: "rate_limit_exceeded"
        case .requestTooLarge: "request_too_large"
        case .unsupportedContentType: "unsupported_content_type"
        case .unsupportedGrantType: "unsupported_grant_type"
        case .filterOperatorRemoved: "unsupported_filter_operator"
        case .duplicateArgument: "duplicate_argument"
        }
    }

    /// A sentence for the developer reading the reply.
    public var errorDescription: String {
        switch self {
        case .missingArgument(let name): "missing required argument: \(name)"
        case .invalidArgument(let name, let reason), .malformedRequest(let name, let reason): "\(name): \(reason)"
        case .invalidCredentials: "Incorrect email address or password."
        case .invalidSecondFactor: "That code is not right, or it was used already."
        case .secondFactorRequired: "enter the code from your authenticator app, or a recovery code"
        case .secondFactorSetupRequired:
            "this app requires a second factor: sign in with a passkey, or set up an authenticator app first"
        case .termsNotAccepted: "accept the current version of the documents listed to go on"
        case .recordNotFound(let what): "\(what) not found"
        case .emailAddressInUse: "This email address is already in use."
        case .invalidFormFields: "some form fields are invalid"
        case .schemaViolation(let violation): violation.message
        case .registrationRequired: "no account is linked to this provider account yet: complete the registration form"
        case .mergeRequired: "an account with this email address exists: sign in to it to link this provider account"
        case .invalidClient: "invalid client credentials"
        case .adminKeyRequired: "a valid admin key is required: Authorization: Bearer <key>"
        case .notPermitted(let reason): reason
        case .recentSignInRequired(let change, let minutes):
            "\(change.described) needs a recent sign-in, or the current password (and a code from the authenticator app "
                + "when one is set up): sign in again, then try again within \(minutes) minutes"
        case .accountDeactivated, .accountDeleted: "this account has been deactivated"
        case .emailNotVerified: "confirm your email address first: we sent a code to it"
        case .accessTokenExpired: "access_token has expired"
        case .invalidAccessToken: "access_token is invalid or has been revoked"
        case .invalidGrant(let reason): reason
        case .authorizationCodeExpired: "authorization code has expired"
        case .redirectURIMismatch: "redirect_uri does not match a redirect URI registered for this client"
        case .rateLimited: "too many attempts; try again later"
        case .unexpected: "unexpected error"
        case .storageUnavailable: "the service cannot reach its database for a moment; try again shortly"
        case .requestTooLarge(let limit): "request body is larger than \(limit) bytes"
        case .unsupportedContentType(let type):
            "content type '\(type)' is not accepted; send application/x-www-form-urlencoded"
        case .unsupportedGrantType(let type): "grant_type '\(type)' is not supported"
        case .filterOperatorRemoved(let name):
            "filter: the '\(name)' operator was removed; compare with =, !=, <, <=, >, >= or 'is null'"
        case .duplicateArgument(let name, let reason): "\(name): \(reason)"
        }
    }
}

extension CaptureError {
    /// Any thrown error as a use case reports it: a schema refusal becomes `.schemaViolation`, a `CaptureError`
    /// stays itself, anything else is unexpected.
    public init(_ error: any Error) {
        switch error {
        case let violation as SchemaViolation: self = .schemaViolation(violation)
        case let error as CaptureError: self = error
        default: self = .unexpected("\(error)")
        }
    }
}
