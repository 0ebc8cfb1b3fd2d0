/// A record as Janrain's server API shows it, read in one go: the user, its profile as stored (the text
/// `EntityEncoder.write` copies; the user's `profile` is then left empty), its linked accounts and passkeys.
public struct StoredRecord: Sendable {
    public var user: User
    public var storedProfile: String?
    public var profiles: [LinkedIdentity]
    public var passkeys: [Passkey]

    public init(user: User, storedProfile: String?, profiles: [LinkedIdentity], passkeys: [Passkey]) {
        self.user = user
        self.storedProfile = storedProfile
        self.profiles = profiles
        self.passkeys = passkeys
    }

    /// The user with its profile parsed (for picking attributes).
    public var parsedUser: User {
        guard let storedProfile else { return user }
        var user = self.user
        user.profile = StoredJSON.object(storedProfile) ?? [:]
        return user
    }
}

/// The records the server API answers with (`entity` by selector, `entity.find`), each with its lists, read as the
/// token checks read `/entity`'s (docs/adr/0060): one statement for a record whose user has no linked accounts or
/// passkeys, the lists in the same read only for those that have some. Each backend answers from its engine.
public protocol RecordReads: Sendable {
    /// The record `selector` names, or nil.
    func record(_ selector: EntitySelector) async throws -> StoredRecord?
    /// `UserRepository.find(_:)`'s records, with what the reply shows of each.
    func records(_ query: EntityQuery) async throws -> [StoredRecord]
}
