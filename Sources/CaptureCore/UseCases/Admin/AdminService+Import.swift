import Foundation

extension AdminService {
    /// `capturectl user import`: reads an export file record by record and stores each record whole or not at
    /// all. Records are checked here (the schema, the password hash, the service's own attributes) and written in
    /// batches of `options.batchSize`, one transaction each; a record that is refused (the schema's reason, or a
    /// collision with a stored record or an earlier one of the file) is reported through `refused` with its line,
    /// in line order batch by batch, and does not stop the others.
    public func importUsers(
        from url: URL, options: ImportOptions, refused: (ImportRefusal) -> Void
    ) async throws -> ImportSummary {
        var source = try ImportSource(url: url, options: options, schema: catalog.schema)
        var batch = ImportBatch(capacity: options.batchSize)
        var summary = ImportSummary()
        while let record = try source.next() {
            summary.read += 1
            do {
                let user = try ImportRecord.user(
                    from: record.value.get(), schema: catalog.schema, ignoreUnknown: options.ignoreUnknown,
                    now: time.now(), newID: minter.identifier)
                batch.users.append((record.line, user))
            } catch {
                batch.refusals.append(ImportRefusal(line: record.line, error))
            }
            if batch.users.count >= options.batchSize {
                try await store(&batch, into: &summary, refused: refused)
            }
        }
        try await store(&batch, into: &summary, refused: refused)
        return summary
    }

    /// Writes the batch's records, counts and reports the outcome, and empties the batch.
    private func store(
        _ batch: inout ImportBatch, into summary: inout ImportSummary, refused: (ImportRefusal) -> Void
    ) async throws {
        if !batch.users.isEmpty {
            let outcomes = try await users.importBatch(batch.users.map(\.user))
            for ((line, user), outcome) in zip(batch.users, outcomes) {
                switch outcome {
                case .success(let stored):
                    summary.imported += 1
                    if user.number != nil && stored.number != user.number { summary.renumbered += 1 }
                case .failure(let conflict):
                    batch.refusals.append(ImportRefusal(line: line, Self.violation(conflict)))
                }
            }
        }
        summary.refused += batch.refusals.count
        batch.refusals.sort { $0.line < $1.line }
        batch.refusals.forEach(refused)
        batch.users.removeAll(keepingCapacity: true)
        batch.refusals.removeAll(keepingCapacity: true)
    }

    static func violation(_ conflict: ImportConflict) -> SchemaViolation {
        switch conflict {
        case .id: SchemaViolation(.unique, "uuid", "a user with this uuid already exists")
        case .email: SchemaViolation(.unique, "email", "this email address is already in use")
        case .unique(let path): SchemaViolation(.unique, path, "this \(path) is already taken")
        }
    }
}

/// The records read since the last write: those to store, and those already refused.
private struct ImportBatch {
    var users: [(line: Int, user: User)] = []
    var refusals: [ImportRefusal] = []

    init(capacity: Int) {
        users.reserveCapacity(capacity)
    }
}
