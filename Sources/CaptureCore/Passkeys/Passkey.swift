import Foundation

/// A passkey registered to an account: the credential's id and public key, and what the authenticator last said.
/// The public key never leaves the service; the record shows the name, creation and last use only.
public struct Passkey: Sendable, Equatable {
    /// base64url of the credential id.
    public var credentialID: String
    public var userID: String
    public var name: String
    /// The COSE key as the authenticator encoded it.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    public var transports: [String]
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(
        credentialID: String, userID: String, name: String, publicKey: [UInt8], signCount: UInt32,
        backupEligible: Bool, backedUp: Bool, transports: [String], createdAt: Date
    ) {
        self.credentialID = credentialID
        self.userID = userID
        self.name = name
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.transports = transports
        self.createdAt = createdAt
    }

    /// A name is at most this long (characters); a longer one is refused, not cut: a name cut silently is not the one
    /// the person typed, and they would find out only in their list.
    public static let maxNameLength = 64

    /// The name a person gave, trimmed and without control characters; else "Passkey" and the day it was made.
    /// Over `maxNameLength` it is `invalid_argument` on `name`, as the call's other bad parameters are.
    public static func name(_ given: String?, at date: Date) throws -> String {
        let trimmed = (given ?? "").trimmingCharacters(in: .whitespacesAndNewlines).filter { !$0.isASCII || $0 >= " " }
        guard trimmed.count <= maxNameLength else {
            throw CaptureError.invalidArgument("name", "a passkey's name is at most \(maxNameLength) characters")
        }
        if !trimmed.isEmpty { return trimmed }
        return "Passkey " + String(CaptureDate.format(date).prefix(10))
    }

    /// WebAuthn §6.1.1: a counter that does not move past the stored one means two authenticators hold the key,
    /// unless both are zero (authenticators that keep no counter, such as synced passkeys).
    public static func counterAccepts(stored: UInt32, presented: UInt32) -> Bool {
        (stored == 0 && presented == 0) || presented > stored
    }
}

/// A ceremony under way: a passkey challenge, a second-factor ticket or an authenticator set-up, stored under the
/// SHA-256 of the secret its caller holds, single use and short-lived.
public struct PendingCeremony: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Adding a passkey to a signed-in account: bound to the access token's session.
        case passkeyCreate = "passkey.create"
        /// Signing in with a passkey: bound to the client and, address-first, to the account's credentials.
        case passkeyGet = "passkey.get"
        /// A password was right and the account has a second factor: the ticket the code completes.
        case secondFactor = "second_factor"
        /// An authenticator app being set up: the secret until the first code confirms it.
        case totpSetup = "totp.setup"
        /// A sign-in proven in full whose client requires documents the person has not accepted yet: the ticket
        /// `/oauth/accept_terms` finishes it with.
        case termsAgreement = "terms_agreement"
    }

    public var hash: String
    public var kind: Kind
    public var userID: String?
    public var clientID: String
    /// What the kind needs to finish, as text (a session hash, credential ids, a sealed secret, a sign-in's context).
    public var payload: String
    public var attempts: Int
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        hash: String, kind: Kind, userID: String?, clientID: String, payload: String, createdAt: Date, expiresAt: Date
    ) {
        self.hash = hash
        self.kind = kind
        self.userID = userID
        self.clientID = clientID
        self.payload = payload
        self.attempts = 0
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
