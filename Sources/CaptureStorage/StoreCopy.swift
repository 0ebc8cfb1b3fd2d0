import CaptureCore

/// `capturectl db copy`: every row of one store into another, empty one, of either backend (SQLite → PostgreSQL to
/// move to several instances, PostgreSQL → SQLite for a local copy). Tables go parents first, a page at a time;
/// values keep their types, ids their numbers.
public enum StoreCopy {
    public static let pageSize = 1000

    /// The tables, parents before the rows that reference them; column names as SQLite has them.
    public static let tables: [StoredTable] = [
        StoredTable(
            "users", orderedBy: ["id"],
            [
                ("id", .text), ("number", .integer), ("email", .text), ("passwordHash", .text), ("profile", .text),
                ("lastElementID", .integer), ("emailVerifiedAt", .date), ("createdAt", .date), ("updatedAt", .date),
                ("lastLoginAt", .date), ("disabledAt", .date), ("deleteRequestedAt", .date),
            ]),
        StoredTable(
            "user_unique", orderedBy: ["attribute", "value"],
            [
                ("attribute", .text), ("value", .text), ("userID", .text),
            ]),
        StoredTable(
            "clients", orderedBy: ["clientID"],
            [
                ("clientID", .text), ("name", .text), ("secretHash", .text), ("redirectURIs", .texts),
                ("allowedOrigins", .texts), ("responseTypes", .texts), ("legacyTokenURL", .bool),
                ("accessTokenLifeHours", .real), ("keepSessionsOnPasswordChange", .bool), ("requireVerifiedEmail", .bool),
                ("allowUnverifiedEmail", .bool), ("features", .texts), ("whitelist", .texts), ("sealedSecret", .text),
                ("retiringSecretHash", .text), ("retiringSealedSecret", .text), ("retiringSecretExpiresAt", .date),
                ("createdAt", .date),
            ]),
        StoredTable("default_settings", orderedBy: ["key"], [("key", .text), ("value", .text)]),
        StoredTable(
            "client_settings", orderedBy: ["clientID", "key"], [("clientID", .text), ("key", .text), ("value", .text)]),
        StoredTable(
            "tokens", orderedBy: ["id"], generatedID: true,
            [
                ("id", .integer), ("kind", .text), ("hash", .text), ("userID", .text), ("clientID", .text),
                ("chainID", .text), ("scope", .text), ("authProvider", .text), ("issuedAt", .date), ("expiresAt", .date),
                ("usedAt", .date), ("revokedAt", .date), ("refreshSecret", .text), ("redirectURI", .text),
                ("codeChallenge", .text), ("device", .text),
            ]),
        StoredTable(
            "throttle", orderedBy: ["key"],
            [
                ("key", .text), ("level", .real), ("updatedAt", .date), ("expiresAt", .date),
            ]),
        StoredTable(
            "codes", orderedBy: ["id"], generatedID: true,
            [
                ("id", .integer), ("purpose", .text), ("userID", .text), ("hash", .text), ("createdAt", .date),
                ("expiresAt", .date), ("attempts", .integer), ("usedAt", .date), ("address", .text),
            ]),
        StoredTable(
            "outbox", orderedBy: ["id"], generatedID: true,
            [
                ("id", .integer), ("messageID", .text), ("kind", .text), ("recipient", .text), ("userID", .text),
                ("subject", .text), ("text", .text), ("html", .text), ("status", .text), ("attempts", .integer),
                ("nextAttemptAt", .date), ("lastError", .text), ("createdAt", .date), ("sentAt", .date),
                ("bodyExpiresAt", .date), ("deferrals", .integer),
            ]),
        StoredTable(
            "social_logins", orderedBy: ["id"], generatedID: true,
            [
                ("id", .integer), ("stateHash", .text), ("provider", .text), ("clientID", .text), ("flow", .text),
                ("locale", .text), ("responseType", .text), ("returnURL", .text), ("nonce", .text),
                ("codeVerifier", .text), ("createdAt", .date), ("expiresAt", .date), ("subject", .text),
                ("claims", .text), ("tokenHash", .text), ("tokenExpiresAt", .date), ("usedAt", .date),
                ("initiatorChallenge", .text), ("providerToken", .text),
            ]),
        StoredTable(
            "identities", orderedBy: ["provider", "subject"],
            [
                ("provider", .text), ("subject", .text), ("userID", .text), ("email", .text), ("vouched", .bool),
                ("linkedAt", .date), ("lastUsedAt", .date), ("providerToken", .text),
            ]),
        StoredTable(
            "provider_revocations", orderedBy: ["id"], generatedID: true,
            [
                ("id", .integer), ("provider", .text), ("sealedToken", .text), ("attempts", .integer),
                ("nextAttemptAt", .date), ("lastError", .text), ("queuedAt", .date),
            ]),
        StoredTable(
            "passkeys", orderedBy: ["credentialID"],
            [
                ("credentialID", .text), ("userID", .text), ("name", .text), ("publicKey", .text), ("signCount", .integer),
                ("backupEligible", .bool), ("backedUp", .bool), ("transports", .texts), ("createdAt", .date),
                ("lastUsedAt", .date),
            ]),
        StoredTable(
            "ceremonies", orderedBy: ["hash"],
            [
                ("hash", .text), ("kind", .text), ("userID", .text), ("clientID", .text), ("payload", .text),
                ("attempts", .integer), ("createdAt", .date), ("expiresAt", .date),
            ]),
        StoredTable(
            "second_factors", orderedBy: ["userID"],
            [
                ("userID", .text), ("sealedSecret", .text), ("lastStep", .integer), ("recoveryHashes", .texts),
                ("createdAt", .date),
            ]),
        StoredTable(
            "oidc_grants", orderedBy: ["chainID"],
            [
                ("chainID", .text), ("issuer", .text), ("clientID", .text), ("userID", .text), ("scopes", .text),
                ("nonce", .text), ("authTime", .date), ("methods", .text), ("acr", .text), ("sessionID", .text),
                ("expiresAt", .date),
            ]),
        StoredTable(
            "admin_keys", orderedBy: ["id"],
            [
                ("id", .text), ("name", .text), ("secretHash", .text), ("createdAt", .date), ("revokedAt", .date),
            ]),
        StoredTable(
            "signing_keys", orderedBy: ["kid"],
            [
                ("kid", .text), ("alg", .text), ("generation", .integer), ("sealedKey", .text), ("createdAt", .date),
                ("retireAt", .date),
            ]),
        StoredTable(
            "audit_log", orderedBy: ["id"], generatedID: true,
            [
                ("id", .integer), ("at", .date), ("actor", .text), ("action", .text), ("target", .text),
                ("outcome", .text), ("detail", .text),
            ]),
        StoredTable(
            "webhook_subscriptions", orderedBy: ["id"],
            [
                ("id", .text), ("title", .text), ("endpoint", .text), ("events", .text), ("clients", .text),
                ("attributes", .text), ("includeValues", .bool), ("enabled", .bool), ("disabledReason", .text),
                ("signing", .text), ("sealedSecret", .text), ("sealedPreviousSecret", .text),
                ("previousSecretExpiresAt", .date), ("createdAt", .date), ("updatedAt", .date),
            ]),
        StoredTable(
            "webhook_events", orderedBy: ["id"], generatedID: true,
            [
                ("id", .integer), ("messageID", .text), ("subscriptionID", .text), ("type", .text), ("userID", .text),
                ("payload", .text), ("status", .text), ("attempts", .integer), ("nextAttemptAt", .date),
                ("createdAt", .date), ("deliveredAt", .date), ("lastError", .text),
            ]),
        StoredTable(
            "webhook_attempts", orderedBy: ["id"], generatedID: true,
            [
                ("id", .integer), ("eventID", .integer), ("at", .date), ("status", .integer), ("milliseconds", .integer),
                ("error", .text),
            ]),
    ]

    /// A table's name and how many rows were copied.
    public typealias Report = [(table: String, rows: Int)]

    /// Copies every table; refuses a target that holds any row, before writing anything.
    public static func copy(from source: any RowStore, to target: any RowStore) async throws -> Report {
        for table in tables where try await target.count(table) > 0 {
            throw CaptureError.notPermitted("the target database is not empty (its \(table.name) table has rows)")
        }
        var report: Report = []
        for table in tables {
            var copied = 0
            while true {
                let page = try await source.rows(of: table, offset: copied, limit: pageSize)
                if page.isEmpty { break }
                try await target.insert(page, into: table)
                copied += page.count
                if page.count < pageSize { break }
            }
            report.append((table.name, copied))
        }
        try await target.finishCopy(tables)
        return report
    }
}
