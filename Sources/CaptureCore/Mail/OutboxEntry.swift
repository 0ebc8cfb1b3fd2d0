import Foundation

/// A message in the outbox: the record of every message the service means to send, with its delivery status.
/// The body holds a live code, so it is kept only until the message is delivered or the code expires.
public struct OutboxEntry: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Waiting for its first or next delivery attempt (or for a relay to be configured).
        case pending
        case sent
        /// Given up: a permanent refusal, too many attempts, or its code expired first.
        case failed
        /// Asked for an address with no account (or a disabled one): recorded, never sent, so that the asker
        /// cannot tell from the reply or its timing.
        case suppressed
    }

    public enum Kind: String, Sendable, Codable, CaseIterable {
        case passwordReset, emailVerification
        /// A notice without a code: sign-ins through providers were removed when the mailbox was first proven.
        case providerLinksRemoved
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
    public var createdAt: Date
    public var sentAt: Date?
    /// When the body stops being worth keeping (its code's expiry).
    public var bodyExpiresAt: Date

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
        self.nextAttemptAt = createdAt
        self.createdAt = createdAt
        self.bodyExpiresAt = bodyExpiresAt
    }
}
