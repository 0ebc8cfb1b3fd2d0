import CaptureCore

/// The server API's record reads on PostgreSQL (`RecordReads`): the records through the users repository, each
/// with its lists through theirs. (One statement per record, as SQLite reads them, is what a connection per event
/// loop would make worth it; see the roadmap.)
struct PostgresRecordReads: RecordReads {
    let users: PostgresUserRepository
    let identities: PostgresIdentityRepository
    let passkeys: PostgresPasskeyRepository

    func record(_ selector: EntitySelector) async throws -> StoredRecord? {
        let user: User?
        switch selector {
        case .uuid(let id): user = try await users.find(id: id)
        case .number(let number): user = try await users.find(number: number)
        case .key("email", let address): user = try await users.find(email: address)
        case .key(let attribute, let text): user = try await users.find(unique: attribute, text: text)
        }
        guard let user else { return nil }
        return try await listing(user)
    }

    func records(_ query: EntityQuery) async throws -> [StoredRecord] {
        var records: [StoredRecord] = []
        for user in try await users.find(query) { records.append(try await listing(user)) }
        return records
    }

    private func listing(_ user: User) async throws -> StoredRecord {
        StoredRecord(
            user: user, storedProfile: nil, profiles: try await identities.list(userID: user.id),
            passkeys: try await passkeys.list(userID: user.id))
    }
}
