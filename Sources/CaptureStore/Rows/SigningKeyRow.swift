import CaptureCore
import Foundation
import GRDB

/// A row of `signing_keys` and its mapping to and from `SigningKey`.
struct SigningKeyRow: StoredRow, PersistableRecord {
    static let databaseTableName = "signing_keys"
    let value: SigningKey

    init(_ value: SigningKey) {
        self.value = value
    }

    init(row: Row) throws {
        let name: String = row["alg"]
        guard let algorithm = JWSAlgorithm(rawValue: name) else {
            throw CaptureError.unexpected("signing_keys holds a key of an algorithm this build does not know: \(name)")
        }
        value = SigningKey(
            kid: row["kid"], algorithm: algorithm, generation: row["generation"], sealedKey: row["sealedKey"],
            createdAt: row["createdAt"], retireAt: row["retireAt"])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["kid"] = value.kid
        container["alg"] = value.algorithm.rawValue
        container["generation"] = value.generation
        container["sealedKey"] = value.sealedKey
        container["createdAt"] = value.createdAt
        container["retireAt"] = value.retireAt
    }
}
