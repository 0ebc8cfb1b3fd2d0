import CaptureCore
import Foundation
import GRDB

/// A row of `oidc_grants` and its mapping to and from `OIDCGrant`: scopes and methods as space-separated words.
struct OIDCGrantRow: StoredRow, PersistableRecord {
    static let databaseTableName = "oidc_grants"
    let value: OIDCGrant

    init(_ value: OIDCGrant) {
        self.value = value
    }

    init(row: Row) throws {
        let scopes: String = row["scopes"], methods: String = row["methods"]
        value = OIDCGrant(
            chainID: row["chainID"], issuer: row["issuer"], clientID: row["clientID"], userID: row["userID"],
            scopes: scopes.split(separator: " ").map(String.init), nonce: row["nonce"], authTime: row["authTime"],
            methods: methods.split(separator: " ").map(String.init), acr: row["acr"], sessionID: row["sessionID"],
            expiresAt: row["expiresAt"])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["chainID"] = value.chainID
        container["issuer"] = value.issuer
        container["clientID"] = value.clientID
        container["userID"] = value.userID
        container["scopes"] = value.scopes.joined(separator: " ")
        container["nonce"] = value.nonce
        container["authTime"] = value.authTime
        container["methods"] = value.methods.joined(separator: " ")
        container["acr"] = value.acr
        container["sessionID"] = value.sessionID
        container["expiresAt"] = value.expiresAt
    }
}
