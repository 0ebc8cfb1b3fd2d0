extension CaptureService {
    /// An operator's answer to a person who lost every factor: the account's passkeys and second factor go (the
    /// password, and recovery by mail, stay). Audited by the admin console that calls it.
    public func resetFactors(_ reference: String) async throws -> (User, passkeys: Int, secondFactor: Bool) {
        let user = try await findUser(reference)
        let passkeys = try await store.passkeys.removeAll(userID: user.id)
        let secondFactor = try await store.secondFactors.remove(userID: user.id)
        return (user, passkeys, secondFactor)
    }
}
