import CaptureCore
import Foundation
import GRDB

/// A row of `passkeys` and its mapping to and from `Passkey`: the public key as base64url text, the transports as a
/// JSON array.
struct PasskeyRow: StoredRow, PersistableRecord {
    static let databaseTableName = "passkeys"
    let value: Passkey

    init(_ value: Passkey) {
        self.value = value
    }

    init(row: Row) throws {
        var passkey = Passkey(
            credentialID: row["credentialID"], userID: row["userID"], name: row["name"],
            publicKey: StoredBytes.bytes(row["publicKey"]), signCount: UInt32(clamping: row["signCount"] as Int64),
            backupEligible: row["backupEligible"], backedUp: row["backedUp"], transports: StoredList.list(row["transports"]),
            createdAt: row["createdAt"])
        passkey.lastUsedAt = row["lastUsedAt"]
        value = passkey
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["credentialID"] = value.credentialID
        container["userID"] = value.userID
        container["name"] = value.name
        container["publicKey"] = StoredBytes.text(value.publicKey)
        container["signCount"] = Int64(value.signCount)
        container["backupEligible"] = value.backupEligible
        container["backedUp"] = value.backedUp
        container["transports"] = StoredList.text(value.transports)
        container["createdAt"] = value.createdAt
        container["lastUsedAt"] = value.lastUsedAt
    }
}

/// A row of `ceremonies` and its mapping to and from `PendingCeremony`. A row of a kind this build does not know is
/// an error, never read as another kind.
struct CeremonyRow: StoredRow, PersistableRecord {
    static let databaseTableName = "ceremonies"
    let value: PendingCeremony

    init(_ value: PendingCeremony) {
        self.value = value
    }

    init(row: Row) throws {
        let kind: String = row["kind"]
        guard let known = PendingCeremony.Kind(rawValue: kind) else {
            throw CaptureError.unexpected("a ceremony of unknown kind \(kind)")
        }
        var ceremony = PendingCeremony(
            hash: row["hash"], kind: known, userID: row["userID"], clientID: row["clientID"], payload: row["payload"],
            createdAt: row["createdAt"], expiresAt: row["expiresAt"])
        ceremony.attempts = row["attempts"]
        value = ceremony
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["hash"] = value.hash
        container["kind"] = value.kind.rawValue
        container["userID"] = value.userID
        container["clientID"] = value.clientID
        container["payload"] = value.payload
        container["attempts"] = value.attempts
        container["createdAt"] = value.createdAt
        container["expiresAt"] = value.expiresAt
    }
}

/// A row of `second_factors` and its mapping to and from `SecondFactor`: the recovery hashes as a JSON array.
struct SecondFactorRow: StoredRow, PersistableRecord {
    static let databaseTableName = "second_factors"
    let value: SecondFactor

    init(_ value: SecondFactor) {
        self.value = value
    }

    init(row: Row) throws {
        var factor = SecondFactor(
            userID: row["userID"], sealedSecret: row["sealedSecret"], recoveryHashes: StoredList.list(row["recoveryHashes"]),
            createdAt: row["createdAt"])
        factor.lastStep = row["lastStep"]
        value = factor
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["userID"] = value.userID
        container["sealedSecret"] = value.sealedSecret
        container["lastStep"] = value.lastStep
        container["recoveryHashes"] = StoredList.text(value.recoveryHashes)
        container["createdAt"] = value.createdAt
    }
}
