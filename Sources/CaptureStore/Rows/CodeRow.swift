import CaptureCore
import Foundation
import GRDB

/// A row of `codes` and its mapping to and from `OneTimeCode`. A purpose this build does not know is an error.
struct CodeRow: GeneratedIDRow {
    static let databaseTableName = "codes"
    var value: OneTimeCode

    init(_ value: OneTimeCode) {
        self.value = value
    }

    var id: Int64? {
        get { value.id }
        set { value.id = newValue }
    }

    init(row: Row) throws {
        let purpose: String = row["purpose"]
        guard let known = CodePurpose(rawValue: purpose) else {
            throw CaptureError.unexpected("a code of unknown purpose \(purpose)")
        }
        var code = OneTimeCode(
            purpose: known, userID: row["userID"], hash: row["hash"], address: row["address"], createdAt: row["createdAt"],
            expiresAt: row["expiresAt"])
        code.id = row["id"]
        code.attempts = row["attempts"]
        code.usedAt = row["usedAt"]
        value = code
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["purpose"] = value.purpose.rawValue
        container["userID"] = value.userID
        container["hash"] = value.hash
        container["address"] = value.address
        container["createdAt"] = value.createdAt
        container["expiresAt"] = value.expiresAt
        container["attempts"] = value.attempts
        container["usedAt"] = value.usedAt
    }
}
