import Foundation

/// A message in the outbox: the record of every message the service means to send, with its delivery status.
/// The body holds a live code, so it is kept only until the message is delivered or the code expires (a failed
/// message keeps it until then too, so `capturectl mail retry` can send it once the cause is fixed).
public struct OutboxEntry: Sendable, Equatable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Waiting for its first or next delivery attempt (or for a relay to be configured). A message whose recipient
        /// the relay deferred (a 4xx to RCPT TO) waits here too, with `lastError` and its own next attempt.
        case pending
        /// Waiting for the relay: an attempt found the relay failing (no connection, TLS, the login, a refusal not
        /// about the recipient), and every waiting message waits with it until `nextAttemptAt`. Never given up for
        /// that: it is sent once the relay works again, or fails only when its code expires first.
        case deferred
        case sent
        /// Given up: the relay refused its recipient (a 5xx to RCPT TO), the message cannot be built, or its code
        /// expired before it could be delivered.
        case failed
        /// Asked for an address with no account (or a disabled one): recorded, never sent, so that the asker
        /// cannot tell from the reply or its timing.
        case suppressed
    }

    public enum Kind: String, Sendable, Codable, CaseIterable {
        case passwordReset, emailVerification
        /// A notice without a code: sign-ins through providers were removed when the mailbox was first proven.
        case providerLinksRemoved
        /// A notice to the old address: the account's address was changed (no code).
        case emailChanged
        /// A notice: the account was deleted, is deactivated, and is erased at `{{erase}}` unless its owner signs in
        /// again before then. Not linked to the account, so that its erasure leaves the notice to be delivered.
        case accountDeleted
        /// The account's data (`AccountExport`) as `{{data}}`, mailed to its address on its owner's request.
        case accountData
    }

    public var id: Int64?
    public var messageID: String
    public var kind: Kind
    public var recipient: String
    public var userID: String?
    public var subject: String
    public var text: String?
    public var html: String?
    public var status: Status
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    /// How many times in a row the relay failed while this message waited (the outbox's pauses grow with it); back
    /// to 0 once the relay delivers again.
    public var deferrals: Int
    public var createdAt: Date
    public var sentAt: Date?
    /// When the body stops being worth keeping (its code's expiry).
    public var bodyExpiresAt: Date

    /// What a notice that outlives its account (no `userID`: the deletion notice, sent as the account is erased)
    /// keeps of its recipient once it is delivered.
    public static let forgottenRecipient = "(erased)"

    /// Forgets the body once it is delivered or too late to send; a notice that outlives its account forgets its
    /// recipient too, the last thing the store held of an erased person.
    public mutating func forgetBody() {
        text = nil
        html = nil
        if userID == nil, kind == .accountDeleted { recipient = Self.forgottenRecipient }
    }

    public init(
        messageID: String, kind: Kind, recipient: String, userID: String?, subject: String, text: String?, html: String?,
        status: Status, createdAt: Date, bodyExpiresAt: Date
    ) {
        self.messageID = messageID
        self.kind = kind
        self.recipient = recipient
        self.userID = userID
        self.subject = subject
        self.text = text
        self.html = html
        self.status = status
        self.attempts = 0
        self.deferrals = 0
        self.nextAttemptAt = createdAt
        self.createdAt = createdAt
        self.bodyExpiresAt = bodyExpiresAt
    }

    /// Waiting to be sent (`pending` or `deferred`).
    public var isWaiting: Bool { status == .pending || status == .deferred }
}
