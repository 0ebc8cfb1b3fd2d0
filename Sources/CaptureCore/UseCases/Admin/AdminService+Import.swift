import CaptureJSON
import Foundation

/// One record to import: where it came from (its line in a file, or its place in a pull) and its JSON, or why it
/// could not even be read.
public struct ImportInput: Sendable {
    public var line: Int
    public var value: Result<JSONValue, CaptureError>

    public init(line: Int, value: Result<JSONValue, CaptureError>) {
        self.line = line
        self.value = value
    }
}

extension AdminService {
    /// `capturectl user import`: reads an export file record by record and stores each record whole or not at
    /// all, in batches of `options.batchSize` (`importRecords`). `progress` hears the running summary after each
    /// full batch (not after the last one: the caller has the summary then).
    public func importUsers(
        from url: URL, options: ImportOptions, progress: (ImportSummary) -> Void = { _ in },
        refused: (ImportRefusal) -> Void
    ) async throws -> ImportSummary {
        var source = try ImportSource(url: url, options: options, schema: catalog.schema)
        var summary = ImportSummary()
        var batch: [ImportInput] = []
        batch.reserveCapacity(options.batchSize)
        while let record = try source.next() {
            batch.append(ImportInput(line: record.line, value: record.value))
            if batch.count >= options.batchSize {
                try await importRecords(batch, options: options, into: &summary, refused: refused)
                batch.removeAll(keepingCapacity: true)
                progress(summary)
            }
        }
        try await importRecords(batch, options: options, into: &summary, refused: refused)
        return summary
    }

    /// Imports records as Janrain's `entity` and `entity.find` answer them, the import's and the pull's one path.
    /// Each is checked (the schema, the password hash, the service's own attributes) and then:
    /// - a `uuid` not stored yet is created, in one write transaction for the new records of the call, keeping its
    ///   `id` (ImportSummary.renumbered when another record holds it);
    /// - a stored `uuid` is updated when the record's `lastUpdated` is later than the stored one, and left as it is
    ///   otherwise (unchanged, or changed here since: the newer copy wins), so running an import again duplicates
    ///   nothing;
    /// - its `profiles` become linked provider accounts, kept for providers not configured here yet (`ImportedProfiles`).
    /// A record that is refused is reported through `refused` (line order) and does not stop the others.
    public func importRecords(
        _ records: [ImportInput], options: ImportOptions, into summary: inout ImportSummary,
        refused: (ImportRefusal) -> Void
    ) async throws {
        var refusals: [ImportRefusal] = []
        var fresh: [(line: Int, user: User, profiles: JSONValue?)] = []
        for record in records {
            summary.read += 1
            var uuid: String?
            do {
                guard case .object(var members) = try record.value.get() else {
                    throw CaptureError.schemaViolation(SchemaViolation(.invalidJSONType, "", "a record must be a JSON object"))
                }
                if case .string(let text)? = members["uuid"] { uuid = text.lowercased() }
                // The service's own lists, not schema attributes: linked accounts are taken below; passkeys are bound
                // to the old app's origin and carry no key, so they cannot move.
                let profiles = members.removeValue(forKey: "profiles")
                members.removeValue(forKey: "passkeys")
                let user = try ImportRecord.user(
                    from: .object(members), schema: catalog.schema, ignoreUnknown: options.ignoreUnknown,
                    now: time.now(), newID: minter.identifier)
                if let stored = try await users.find(id: user.id) {
                    try await refresh(stored, with: user, profiles: profiles, into: &summary)
                } else {
                    fresh.append((record.line, user, profiles))
                }
            } catch let error as CaptureError {
                refusals.append(ImportRefusal(line: record.line, error, uuid: uuid))
            }
        }
        if !fresh.isEmpty {
            let outcomes = try await users.importBatch(fresh.map(\.user))
            for (record, outcome) in zip(fresh, outcomes) {
                switch outcome {
                case .success(let stored):
                    summary.created += 1
                    if record.user.number != nil && stored.number != record.user.number { summary.renumbered += 1 }
                    try await link(record.profiles, to: stored, into: &summary)
                case .failure(let conflict):
                    refusals.append(ImportRefusal(line: record.line, Self.violation(conflict), uuid: record.user.id))
                }
            }
        }
        summary.refused += refusals.count
        refusals.sort { $0.line < $1.line }
        refusals.forEach(refused)
    }

    /// A record stored already: written over when the source's copy is newer, its `id` and local state (disabled,
    /// deletion requested) kept.
    private func refresh(
        _ stored: User, with imported: User, profiles: JSONValue?, into summary: inout ImportSummary
    )
        async throws
    {
        // Storage may keep dates to the millisecond (SQLite): a copy within a millisecond of the stored one is it.
        guard imported.updatedAt.timeIntervalSince(stored.updatedAt) > 0.001 else {
            summary.unchanged += 1
            try await link(profiles, to: stored, into: &summary)
            return
        }
        var user = imported
        user.number = stored.number
        user.disabledAt = stored.disabledAt
        user.deleteRequestedAt = stored.deleteRequestedAt
        // A legacy hash (docs/adr/0067-legacy-password-hashes.md) stands in only until the first sign-in here: it
        // never replaces the bcrypt hash that sign-in (or a reset) made since.
        let incoming = StoredPasswordHash.format(of: user.passwordHash)
        if user.passwordHash == nil || (incoming != .bcrypt && StoredPasswordHash.format(of: stored.passwordHash) == .bcrypt) {
            user.passwordHash = stored.passwordHash
        }
        try await users.update(user)
        summary.updated += 1
        try await link(profiles, to: user, into: &summary)
    }

    /// Links the record's `profiles`: those of providers configured here, and those of others, kept until one is
    /// (`ImportedProfiles`); counts each kind, and the profiles that name no account.
    private func link(_ profiles: JSONValue?, to user: User, into summary: inout ImportSummary) async throws {
        let found = ImportedProfiles.read(
            profiles, userID: user.id, providers: settings.socialProviders.map(\.name), now: time.now())
        summary.profilesNotLinked += found.unmatched
        guard !found.links.isEmpty || !found.kept.isEmpty else { return }
        let existing = Set(try await identities.list(userID: user.id).map(\.identifier))
        let kept = Set(found.kept.map(\.identifier))
        for identity in found.links + found.kept where !existing.contains(identity.identifier) {
            do {
                try await identities.link(identity)
                if kept.contains(identity.identifier) {
                    summary.profilesKept += 1
                } else {
                    summary.profilesLinked += 1
                }
            } catch CaptureError.notPermitted {
                // The provider account is linked to someone else here: not taken from them.
                summary.profilesNotLinked += 1
            }
        }
    }

    static func violation(_ conflict: ImportConflict) -> SchemaViolation {
        switch conflict {
        case .id: SchemaViolation(.unique, "uuid", "a user with this uuid already exists")
        case .email: SchemaViolation(.unique, "email", "this email address is already in use")
        case .unique(let path): SchemaViolation(.unique, path, "this \(path) is already taken")
        }
    }
}
