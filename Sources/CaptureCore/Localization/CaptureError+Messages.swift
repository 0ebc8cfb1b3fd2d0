extension CaptureError {
    /// The catalog key of this error's sentence (`error.<case>`) and the values of its placeholders.
    public var message: (key: String, values: [String: String]) {
        switch self {
        case .missingArgument(let name): ("error.missingArgument", ["argument": name])
        case .invalidArgument(let name, let reason): ("error.invalidArgument", ["argument": name, "reason": reason])
        case .malformedRequest(let name, let reason): ("error.malformedRequest", ["argument": name, "reason": reason])
        case .invalidCredentials: ("error.invalidCredentials", [:])
        case .recordNotFound(let what): ("error.recordNotFound", ["what": what])
        case .emailAddressInUse: ("error.emailAddressInUse", [:])
        case .invalidFormFields: ("error.invalidFormFields", [:])
        case .schemaViolation(let violation): ("error.schemaViolation", ["reason": violation.message])
        case .registrationRequired: ("error.registrationRequired", [:])
        case .mergeRequired: ("error.mergeRequired", [:])
        case .invalidClient: ("error.invalidClient", [:])
        // Operators read the admin API in English.
        case .adminKeyRequired: ("error.adminKeyRequired", [:])
        case .notPermitted(let reason): ("error.notPermitted", ["reason": reason])
        case .recentSignInRequired(_, let minutes): ("error.recentSignInRequired", ["minutes": "\(minutes)"])
        case .accountDeactivated, .accountDeleted: ("error.accountDeactivated", [:])
        case .emailNotVerified: ("error.emailNotVerified", [:])
        case .accessTokenExpired: ("error.accessTokenExpired", [:])
        case .invalidAccessToken: ("error.invalidAccessToken", [:])
        case .invalidGrant(let reason): ("error.invalidGrant", ["reason": reason])
        case .authorizationCodeExpired: ("error.authorizationCodeExpired", [:])
        case .redirectURIMismatch: ("error.redirectURIMismatch", [:])
        case .rateLimited: ("error.rateLimited", [:])
        case .secondFactorRequired: ("error.secondFactorRequired", [:])
        case .secondFactorSetupRequired: ("error.secondFactorSetupRequired", [:])
        case .termsNotAccepted: ("error.termsNotAccepted", [:])
        case .invalidSecondFactor: ("error.invalidSecondFactor", [:])
        case .requestTooLarge(let limit): ("error.requestTooLarge", ["limit": "\(limit)"])
        case .unsupportedContentType(let type): ("error.unsupportedContentType", ["type": type])
        case .unsupportedGrantType(let type): ("error.unsupportedGrantType", ["type": type])
        case .unexpected: ("error.unexpected", [:])
        case .storageUnavailable: ("error.storageUnavailable", [:])
        case .filterOperatorRemoved(let name): ("error.filterOperatorRemoved", ["operator": name])
        case .duplicateArgument(let name, let reason): ("error.invalidArgument", ["argument": name, "reason": reason])
        }
    }

    /// `errorDescription` in the language of `messages` (the English one when no catalog has the sentence).
    public func localizedDescription(_ messages: Messages?) -> String {
        guard let messages else { return errorDescription }
        let (key, values) = message
        return messages.optionalText(key, values) ?? errorDescription
    }
}
