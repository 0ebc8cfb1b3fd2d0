import CaptureJSON
import Foundation

/// Passkeys and the authenticator app: set-up, removal, passkey sign-in.
public struct FactorService: Sendable {
    let users: any UserRepository
    let ceremonies: any CeremonyRepository
    let secondFactors: any SecondFactorRepository
    let passkeys: any PasskeyRepository
    let time: any TimeSource
    let minter: TokenMinter
    /// The WebAuthn relying party passkeys are made for (`AppAssociation.relyingParty`).
    public let relyingParty: RelyingParty
    let codeKey: CodeKey
    let settings: ServiceSettings
    let metrics: CaptureMetrics
    let admission: Admission
    let steps: FlowSteps
    let audit: AuditTrail
    let accessTokens: AccessTokenCheck
    let stepUp: StepUpCheck
    let secondFactor: SecondFactorCheck
    let clientAccess: ClientAccess
    let clientSettings: ClientSettingsAccess
}

extension FactorService {
    /// `/passkey/registration_options`: a challenge for adding a passkey to the signed-in account, bound to the access
    /// token's session, with the account's passkeys excluded (an authenticator holds one per account). The step-up
    /// is asked for here: `/passkey/register` takes only a ceremony this made for the same session.
    public func passkeyCreationOptions(accessToken: String?, proof: StepUpProof) async throws -> JSONValue {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        try await stepUp.requireStepUp(.addPasskey, of: user, token: token, proof: proof)
        let challenge = try await beginCeremony(.passkeyCreate, userID: user.id, clientID: token.clientID, payload: token.hash)
        return relyingParty.creationOptions(
            challenge: challenge, userHandle: Array(user.id.utf8), userName: user.email,
            displayName: user.displayName ?? user.email, excluding: try await passkeys.list(userID: user.id))
    }

    /// `/passkey/register`: the new passkey, once the authenticator's answer to this session's challenge verifies.
    public func addPasskey(accessToken: String?, credential: String?, name: String?) async throws -> Passkey {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        let response = try Self.credential(credential)
        // Before the challenge is taken: a name to fix costs no new ceremony.
        let named = try Passkey.name(name, at: time.now())
        let (challenge, ceremony) = try await takeCeremony(of: response, .passkeyCreate)
        guard ceremony.userID == user.id, ConstantTime.equals(ceremony.payload, token.hash) else {
            throw Self.refusal(.wrongChallenge)
        }
        let data: AuthenticatorData
        do { data = try relyingParty.verifyRegistration(response, challenge: challenge) } catch {
            throw Self.refusal(error)
        }
        guard let made = data.credential else { throw Self.refusal(.malformed("no credential was made")) }
        let now = time.now()
        let passkey = Passkey(
            credentialID: Data(made.id).base64URLEncoded(), userID: user.id, name: named,
            publicKey: made.publicKeyBytes, signCount: data.signCount, backupEligible: data.backupEligible,
            backedUp: data.backedUp, transports: response.transports, createdAt: now)
        try await passkeys.insert(passkey)
        await audit.recordSecurityEvent("passkey.added", target: user.id, detail: passkey.name)
        return passkey
    }

    /// `/passkey/sign_in_options`: a challenge for a passkey sign-in through `client`. With `email`, the account's
    /// passkeys are listed (address-first); an address without passkeys, or with no account, gets made-up ones of
    /// the same shape (`PasskeyDecoy`), so the answer does not tell who has an account or passkeys. Without, the
    /// authenticator offers its own (discoverable credentials).
    public func passkeyRequestOptions(_ request: FlowRequest, email: String?) async throws -> JSONValue {
        let client = try await clientAccess.client(id: request.clientID)
        try steps.checkCrossOrigin(request, of: client)
        var allowed: [Passkey] = []
        if let email, !email.isEmpty {
            let address = User.normalize(email: email)
            let user = try await users.find(email: address)
            // Listed for every address, with an account or not ("" is nobody's id), so both make the same two reads.
            allowed = try await passkeys.list(userID: user?.id ?? "")
            for index in allowed.indices { allowed[index].transports = PasskeyDecoy.shown(allowed[index].transports) }
            if allowed.isEmpty { allowed = PasskeyDecoy(key: codeKey).credentials(for: address) }
        }
        let challenge = try await beginCeremony(
            .passkeyGet, userID: nil, clientID: client.clientID, payload: allowed.map(\.credentialID).joined(separator: " "))
        return relyingParty.requestOptions(challenge: challenge, allowing: allowed)
    }

    /// `/oauth/auth_native_passkey`: signs in with a passkey's answer to a challenge this client was given, and
    /// replies as a password sign-in does. A passkey with user verification is two factors in one: no second factor
    /// is asked for.
    public func signInWithPasskey(_ request: FlowRequest, credential: String?) async throws -> AuthResult {
        try await metrics.countingSignIn(.passkey) {
            var context = try await steps.context(of: request, takesForm: false)
            let response = try Self.credential(credential)
            let credentialID = Data(response.id).base64URLEncoded()
            let (challenge, ceremony) = try await takeCeremony(of: response, .passkeyGet)
            guard ceremony.clientID == context.client.clientID else { throw Self.refusal(.wrongChallenge) }
            if !ceremony.payload.isEmpty, !ceremony.payload.split(separator: " ").contains(Substring(credentialID)) {
                throw Self.refusal(.wrongUser)
            }
            let relyingParty = self.relyingParty
            let now = time.now()
            let outcome: Result<Passkey, PasskeyFailure> = try await passkeys.use(credentialID: credentialID) { found in
                guard var passkey = found else { return (nil, .failure(.unknownCredential)) }
                if let handle = response.userHandle, handle != Array(passkey.userID.utf8) {
                    return (nil, .failure(.wrongUser))
                }
                do throws(PasskeyFailure) {
                    let data = try relyingParty.verifyAssertion(response, challenge: challenge, passkey: passkey)
                    passkey.signCount = data.signCount
                    passkey.backedUp = data.backedUp
                    passkey.lastUsedAt = now
                    return (passkey, .success(passkey))
                } catch {
                    return (nil, .failure(error))
                }
            }
            let passkey: Passkey
            switch outcome {
            case .success(let used): passkey = used
            case .failure(let failure):
                if case .counterWentBackwards = failure {
                    await audit.recordSecurityEvent(
                        "passkey.counter", target: credentialID, outcome: "refused",
                        detail: failure.reason + " (" + failure.counterDetail + ")")
                }
                throw Self.refusal(failure)
            }
            guard var user = try await users.find(id: passkey.userID) else { throw Self.refusal(.unknownCredential) }
            try admission.admit(user, reactivating: request.reactivate)
            user.lastLoginAt = now
            try await users.update(user)
            context.syncedPasskey = passkey.backupEligible
            return try await steps.complete(
                context, user: user, isNew: false, refreshSecret: request.refreshSecret, provider: "passkey",
                locale: request.locale)
        }
    }

    /// `/factors`: the signed-in account's passkeys and second factor.
    public func factors(accessToken: String?) async throws -> AccountFactors {
        let (user, _) = try await accessTokens.authenticate(accessToken: accessToken)
        let factor = try await secondFactors.find(userID: user.id)
        return AccountFactors(
            passkeys: try await passkeys.list(userID: user.id), secondFactor: factor != nil,
            recoveryCodesLeft: factor?.recoveryHashes.count ?? 0, password: user.passwordHash != nil)
    }

    /// `/passkey/remove`: removes one of the signed-in account's passkeys; the rest stay.
    public func removePasskey(accessToken: String?, id: String?, proof: StepUpProof) async throws {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        guard let id, !id.isEmpty else { throw CaptureError.missingArgument("passkey_id") }
        try await stepUp.requireStepUp(.removePasskey, of: user, token: token, proof: proof)
        guard try await passkeys.remove(credentialID: id, userID: user.id) else {
            throw CaptureError.recordNotFound("passkey")
        }
        await audit.recordSecurityEvent("passkey.removed", target: user.id, detail: id)
    }

    /// A fresh challenge stored as a ceremony of `kind`.
    private func beginCeremony(
        _ kind: PendingCeremony.Kind, userID: String?, clientID: String, payload: String
    )
        async throws -> [UInt8]
    {
        let challenge = minter.random.bytes(32)
        let now = time.now()
        try await ceremonies.insert(
            PendingCeremony(
                hash: TokenMinter.hash(Data(challenge).base64URLEncoded()), kind: kind, userID: userID, clientID: clientID,
                payload: payload, createdAt: now, expiresAt: now.addingTimeInterval(RelyingParty.ceremonyLifetime)))
        return challenge
    }

    /// The challenge the response answers and its ceremony, taken (deleted) whatever happens next: it is single use.
    /// Refused unless it is a live ceremony of `kind`; the caller checks what it is bound to.
    private func takeCeremony(
        of response: CredentialResponse, _ kind: PendingCeremony.Kind
    ) async throws
        -> ([UInt8], PendingCeremony)
    {
        let challenge: [UInt8]
        do { challenge = try CollectedClientData(response.clientDataJSON).challenge } catch { throw Self.refusal(error) }
        let now = time.now()
        let taken = try await ceremonies.use(hash: TokenMinter.hash(Data(challenge).base64URLEncoded())) {
            (nil, $0)
        }
        guard let taken, taken.kind == kind, taken.expiresAt > now else { throw Self.refusal(.wrongChallenge) }
        return (challenge, taken)
    }

    static func credential(_ text: String?) throws -> CredentialResponse {
        guard let text, !text.isEmpty else { throw CaptureError.missingArgument("credential") }
        do { return try CredentialResponse(json: text) } catch { throw refusal(error) }
    }

    static func refusal(_ failure: PasskeyFailure) -> CaptureError {
        .invalidArgument("credential", failure.reason)
    }
}

/// What `/factors` shows of an account: its passkeys, and whether it has a second factor.
public struct AccountFactors: Sendable, Equatable {
    public var passkeys: [Passkey]
    public var secondFactor: Bool
    public var recoveryCodesLeft: Int
    /// Whether the account has a password (what deleting it asks for; without one, a recent sign-in).
    public var password: Bool
}

extension PasskeyFailure {
    var counterDetail: String {
        if case .counterWentBackwards(let stored, let presented) = self { return "stored \(stored), presented \(presented)" }
        return ""
    }
}
