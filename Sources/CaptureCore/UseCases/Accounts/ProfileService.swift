import CaptureJSON

/// The signed-in person's record: reading it (`/entity`), changing it (`entity.update`, profile forms, password).
public struct ProfileService: Sendable {
    let users: any UserRepository
    let tokens: any TokenRepository
    let identities: any IdentityRepository
    let passkeys: any PasskeyRepository
    let hasher: any PasswordHasher
    let time: any TimeSource
    let metrics: CaptureMetrics
    let catalog: FlowCatalog
    let steps: FlowSteps
    let accessTokens: AccessTokenCheck
    let writer: RecordWriter
    let addressChange: AddressChange
    let stepUp: StepUpCheck
}

extension ProfileService {
    /// `/entity`: the record of the user the access token belongs to.
    public func entity(accessToken: String?) async throws -> User {
        try await accessTokens.authenticate(accessToken: accessToken).0
    }

    /// `/entity`'s `result` as JSON: the whole record, written from the stored profile (`EntityEncoder.write`), or
    /// the one attribute `attributeName` names.
    public func entityResultJSON(accessToken: String?, attributeName: String?) async throws -> [UInt8] {
        let encoder = EntityEncoder(schema: catalog.schema)
        guard let attributeName, !attributeName.isEmpty else {
            let (user, lookup) = try await accessTokens.authenticatedRecord(accessToken: accessToken)
            var output: [UInt8] = []
            output.reserveCapacity(4096)
            encoder.write(
                user, storedProfile: lookup.storedProfile, profiles: lookup.profiles, passkeys: lookup.passkeys, to: &output)
            return output
        }
        return try encoder.attribute(attributeName, of: try await entity(accessToken: accessToken)).encodedBytes()
    }

    /// The record in Janrain's shape, with every attribute of the schema, the linked provider accounts and passkeys.
    public func record(of user: User) async throws -> JSONValue {
        EntityEncoder(schema: catalog.schema).record(
            user, profiles: try await identities.list(userID: user.id),
            passkeys: try await passkeys.list(userID: user.id))
    }

    /// `/entity.update`, `/entity.replace`, `/entity.delete` from their raw parameters: the access token is checked
    /// before the JSON is even parsed, so a caller without a valid token cannot make the service do more than a
    /// hash and one lookup. Every value is checked against the schema; the user cannot write read-only attributes.
    public func changeEntity(
        _ kind: EntityChangeRequest.Kind, accessToken: String?, parameters: [String: String], remoteAddress: String? = nil
    ) async throws -> User {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        return try await changeEntity(kind, of: user, token: token, parameters: parameters, remoteAddress: remoteAddress)
    }

    /// `changeEntity` for the user and token a check already found (the server API's calls with a user's token).
    public func changeEntity(
        _ kind: EntityChangeRequest.Kind, of user: User, token: TokenRecord, parameters: [String: String],
        remoteAddress: String?
    ) async throws -> User {
        let change = try EntityChangeRequest(kind, parameters: parameters)
        var document = user.document(schema: catalog.schema, asUser: true)
        switch (change.kind, change.value) {
        case (.update, let value?): try document.update(at: change.path, with: value)
        case (.replace, let value?): try document.replace(at: change.path, with: value)
        default: try document.delete(at: change.path)
        }
        var changed = user
        changed.apply(document)
        let proof = StepUpProof(parameters, remoteAddress: remoteAddress)
        let password = proof.password.map {
            CurrentPassword(field: "current_password", typed: $0, address: remoteAddress, code: proof.code)
        }
        return try await save(
            changed, previous: user, emailField: "email", token: token, password: password, locale: nil,
            messages: catalog.localization.messages(for: nil))
    }

    /// Stores `user` as changed from `previous` (the record `token` was checked against). A changed address needs
    /// the step-up (`requireStepUp`) and the uniqueness lookup, is no longer
    /// verified just because the old one was, and is followed through (`addressChanged`). Consents the save changes
    /// are stamped with the token's client.
    func save(
        _ user: User, previous: User, emailField: String, token: TokenRecord, password: CurrentPassword?,
        flow: FlowDefinition? = nil, locale: String?, messages: Messages
    ) async throws -> User {
        var (user, consents) = writer.stampingConsents(user, previous: previous, clientID: token.clientID)
        let moved = user.email != previous.email
        if moved {
            try await stepUp.requireStepUp(.changeAddress, of: previous, token: token, password: password, messages: messages)
            if let other = try await users.find(email: user.email), other.id != user.id {
                throw CaptureError.emailAddressInUse(field: emailField)
            }
            user.emailVerifiedAt = nil
        }
        user.updatedAt = time.now()
        do {
            try await users.update(user)
        } catch CaptureError.emailAddressInUse {
            throw CaptureError.emailAddressInUse(field: emailField)
        }
        await writer.recordConsentChanges(consents, of: user.id)
        if moved { try await addressChange.addressChanged(from: previous, to: user, token: token, flow: flow, locale: locale) }
        return user
    }
}
