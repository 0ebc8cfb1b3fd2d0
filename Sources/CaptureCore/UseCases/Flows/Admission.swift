import Foundation

/// Whether a proven sign-in may go on: deactivated and deleted accounts, reactivation.
public struct Admission: Sendable {
    let users: any UserRepository
    let time: any TimeSource
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let audit: AuditTrail
}

extension Admission {
    /// A proven sign-in's standing: an active account goes on; one its owner deleted goes on only when the caller
    /// asks to reactivate it within the grace period; any other deactivated account is refused.
    func admit(_ user: User, reactivating: Bool) throws {
        guard user.isDisabled else { return }
        if settings.accountDeletion.isReactivable(user, at: time.now()), let until = settings.accountDeletion.erasure(of: user) {
            if reactivating { return }
            throw CaptureError.accountDeleted(reactivateUntil: until)
        }
        throw CaptureError.accountDeactivated
    }

    /// `admit`, then brings back an account its owner deleted: the sign-in completing now is the owner's proof.
    func admitted(_ user: User, reactivating: Bool) async throws -> User {
        try admit(user, reactivating: reactivating)
        guard user.deleteRequestedAt != nil else { return user }
        var user = RequestTimes.stamped(user, RequestTimes.deletion, nil, schema: catalog.schema)
        user.deleteRequestedAt = nil
        user.disabledAt = nil
        user.updatedAt = time.now()
        try await users.update(user)
        await audit.recordSecurityEvent("account.reactivated", target: user.id, detail: "by its owner's sign-in")
        return user
    }

}
