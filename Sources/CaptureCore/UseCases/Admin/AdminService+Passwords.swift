extension AdminService {
    /// How many users' passwords are in each stored format (`bcrypt`, each legacy format still migrating, `none`):
    /// every record read in pages of 10,000 by Janrain's `id`, the format told from each stored tag here, not in SQL.
    public func passwordFormats() async throws -> [StoredPasswordHash.Format: Int] {
        var counts: [StoredPasswordHash.Format: Int] = [:]
        try await eachUser { user in counts[StoredPasswordHash.format(of: user.passwordHash), default: 0] += 1 }
        return counts
    }

    /// Removes the password of every user whose stored hash is still in the legacy format `name` (or `unusable`):
    /// they set a new one through a reset link. For weak imported formats an operator will not leave until each
    /// user signs in (docs/threat-model.md, "Legacy password hashes"). Returns how many were cleared.
    public func clearPasswords(format name: String) async throws -> Int {
        let format: StoredPasswordHash.Format
        if name == "unusable" {
            format = .unusable
        } else if LegacyPasswordHash.formats.contains(name) {
            format = .legacy(name)
        } else {
            throw CaptureError.invalidArgument(
                "format", "one of \((LegacyPasswordHash.formats + ["unusable"]).joined(separator: ", ")); bcrypt is never cleared"
            )
        }
        var cleared: [User] = []
        try await eachUser { user in
            if StoredPasswordHash.format(of: user.passwordHash) == format { cleared.append(user) }
        }
        for var user in cleared {
            user.passwordHash = nil
            try await users.update(user)
        }
        return cleared.count
    }

    /// Every record, in pages of 10,000 by Janrain's `id` (a filter on `id`, never an offset).
    private func eachUser(_ body: (User) -> Void) async throws {
        var last: Int64 = 0
        while true {
            let page = try await users.find(
                EntityQuery(
                    filter: try EntityFilter.parse("id > \(last)", schema: catalog.schema),
                    maxResults: EntityQuery.maxResultsLimit, timeout: .seconds(EntityQuery.maxTimeoutSeconds)))
            page.forEach(body)
            guard page.count == EntityQuery.maxResultsLimit, let next = page.last?.number else { return }
            last = next
        }
    }
}
