import CaptureCore
import Foundation
import GRDB

/// A row of `social_logins` and its mapping to and from `SocialLogin`: the claims as JSON text.
struct SocialLoginRow: GeneratedIDRow {
    static let databaseTableName = "social_logins"
    var value: SocialLogin

    init(_ value: SocialLogin) {
        self.value = value
    }

    var id: Int64? {
        get { value.id }
        set { value.id = newValue }
    }

    init(row: Row) throws {
        var login = SocialLogin(
            stateHash: row["stateHash"], provider: row["provider"], clientID: row["clientID"], flow: row["flow"],
            locale: row["locale"], responseType: try ResponseType.stored(row["responseType"]), returnURL: row["returnURL"],
            nonce: row["nonce"],
            codeVerifier: row["codeVerifier"], createdAt: row["createdAt"])
        login.id = row["id"]
        login.expiresAt = row["expiresAt"]
        login.subject = row["subject"]
        login.claims = (row["claims"] as String?).flatMap(StoredJSON.object)
        login.tokenHash = row["tokenHash"]
        login.tokenExpiresAt = row["tokenExpiresAt"]
        login.usedAt = row["usedAt"]
        login.initiatorChallenge = row["initiatorChallenge"]
        login.providerToken = row["providerToken"]
        value = login
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["stateHash"] = value.stateHash
        container["provider"] = value.provider
        container["clientID"] = value.clientID
        container["flow"] = value.flow
        container["locale"] = value.locale
        container["responseType"] = ResponseType.storedName(of: value.responseType)
        container["returnURL"] = value.returnURL
        container["nonce"] = value.nonce
        container["codeVerifier"] = value.codeVerifier
        container["createdAt"] = value.createdAt
        container["expiresAt"] = value.expiresAt
        container["subject"] = value.subject
        container["claims"] = value.claims.map(StoredJSON.text)
        container["tokenHash"] = value.tokenHash
        container["tokenExpiresAt"] = value.tokenExpiresAt
        container["usedAt"] = value.usedAt
        container["initiatorChallenge"] = value.initiatorChallenge
        container["providerToken"] = value.providerToken
    }
}

/// A row of `identities` and its mapping to and from `LinkedIdentity`.
struct IdentityRow: StoredRow, PersistableRecord {
    static let databaseTableName = "identities"
    let value: LinkedIdentity

    init(_ value: LinkedIdentity) {
        self.value = value
    }

    init(row: Row) throws {
        var identity = LinkedIdentity(
            provider: row["provider"], subject: row["subject"], userID: row["userID"], email: row["email"],
            vouched: row["vouched"], linkedAt: row["linkedAt"], providerToken: row["providerToken"])
        identity.lastUsedAt = row["lastUsedAt"]
        value = identity
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["provider"] = value.provider
        container["subject"] = value.subject
        container["userID"] = value.userID
        container["email"] = value.email
        container["vouched"] = value.vouched
        container["linkedAt"] = value.linkedAt
        container["lastUsedAt"] = value.lastUsedAt
        container["providerToken"] = value.providerToken
    }
}

/// A row of `provider_revocations`, read into a `ProviderRevocation` (written by the repository's own statements).
struct ProviderRevocationRow: StoredRow {
    static let databaseTableName = "provider_revocations"
    let value: ProviderRevocation

    init(_ value: ProviderRevocation) {
        self.value = value
    }

    init(row: Row) throws {
        value = ProviderRevocation(
            id: row["id"], provider: row["provider"], sealedToken: row["sealedToken"], attempts: row["attempts"],
            nextAttemptAt: row["nextAttemptAt"], lastError: row["lastError"], queuedAt: row["queuedAt"])
    }
}

extension ProviderRevocationRow: PersistableRecord {
    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = value.id
        container["provider"] = value.provider
        container["sealedToken"] = value.sealedToken
        container["attempts"] = value.attempts
        container["nextAttemptAt"] = value.nextAttemptAt
        container["lastError"] = value.lastError
        container["queuedAt"] = value.queuedAt
    }
}
