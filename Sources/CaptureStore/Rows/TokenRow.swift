import CaptureCore
import Foundation
import GRDB

/// A row of `tokens` and its mapping to and from `TokenRecord`, column by column by hand, not through `Codable`: every
/// token check decodes a token and every grant encodes two (`Codable`'s keyed containers were most of a refresh
/// grant's record work).
struct TokenRow: GeneratedIDRow {
    static let databaseTableName = "tokens"
    var value: TokenRecord

    init(_ value: TokenRecord) {
        self.value = value
    }

    var id: Int64? {
        get { value.id }
        set { value.id = newValue }
    }

    init(row: Row) throws {
        var token = TokenRecord(
            kind: TokenKind(rawValue: row["kind"]) ?? .device, hash: row["hash"], userID: row["userID"],
            clientID: row["clientID"], chainID: row["chainID"], scope: row["scope"], authProvider: row["authProvider"],
            issuedAt: row["issuedAt"], expiresAt: row["expiresAt"], refreshSecret: row["refreshSecret"])
        token.id = row["id"]
        token.usedAt = row["usedAt"]
        token.revokedAt = row["revokedAt"]
        token.redirectURI = row["redirectURI"]
        token.codeChallenge = row["codeChallenge"]
        token.device = row["device"]
        value = token
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["kind"] = value.kind.rawValue
        container["hash"] = value.hash
        container["userID"] = value.userID
        container["clientID"] = value.clientID
        container["chainID"] = value.chainID
        container["scope"] = value.scope
        container["authProvider"] = value.authProvider
        container["issuedAt"] = value.issuedAt
        container["expiresAt"] = value.expiresAt
        container["usedAt"] = value.usedAt
        container["revokedAt"] = value.revokedAt
        container["refreshSecret"] = value.refreshSecret
        container["redirectURI"] = value.redirectURI
        container["codeChallenge"] = value.codeChallenge
        container["device"] = value.device
    }
}

extension TokenRow {
    /// The columns `token(_:at:)` reads, in its order (see `UserRow.selection`).
    static let selection = """
        tokens.id, tokens.kind, tokens.hash, tokens.userID, tokens.clientID, tokens.chainID, tokens.scope,
        tokens.authProvider, tokens.issuedAt, tokens.expiresAt, tokens.usedAt, tokens.revokedAt, tokens.refreshSecret,
        tokens.redirectURI, tokens.codeChallenge, tokens.device
        """
    static let selectionCount = 16

    /// A token from `selection`'s columns, the first at `start`.
    static func token(_ row: SelectedColumns, at start: Int) -> TokenRecord {
        let (issued, expires): (StoredInstant, StoredInstant) = (row[start + 8], row[start + 9])
        var token = TokenRecord(
            kind: TokenKind(rawValue: row[start + 1]) ?? .device, hash: row[start + 2], userID: row[start + 3],
            clientID: row[start + 4], chainID: row[start + 5], scope: row[start + 6], authProvider: row[start + 7],
            issuedAt: issued.date, expiresAt: expires.date, refreshSecret: row[start + 12])
        token.id = row[start]
        token.usedAt = (row[start + 10] as StoredInstant?)?.date
        token.revokedAt = (row[start + 11] as StoredInstant?)?.date
        token.redirectURI = row[start + 13]
        token.codeChallenge = row[start + 14]
        token.device = row[start + 15]
        return token
    }
}
