import CaptureJSON
import Foundation

/// Everything the service keeps about one person, as they (or an operator answering their request) download it:
/// the record as `/entity` shows it, the linked provider accounts, whether a second factor is set up, the sessions
/// in use and the audit rows about the account. Never a password hash, a token, a secret or a public key.
public struct AccountExport: Codable, Sendable, Equatable {
    /// Names this document's layout, for whoever reads it later.
    public static let currentFormat = "capture-bridge account export 1"

    public var format: String
    public var exportedAt: Date
    /// The record in Janrain's shape, as `/entity` answers it (passkeys by name, linked accounts as `profiles`).
    public var record: JSONValue
    public var linkedAccounts: [LinkedAccountView]
    public var secondFactor: Bool
    public var sessions: [Session]
    public var audit: [AuditEntryView]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case format, record, sessions, audit
        case exportedAt = "exported_at", linkedAccounts = "linked_accounts", secondFactor = "second_factor"
    }

    public init(
        exportedAt: Date, record: JSONValue, linkedAccounts: [LinkedAccountView], secondFactor: Bool,
        sessions: [Session], audit: [AuditEntryView]
    ) {
        format = Self.currentFormat
        self.exportedAt = exportedAt
        self.record = record
        self.linkedAccounts = linkedAccounts
        self.secondFactor = secondFactor
        self.sessions = sessions
        self.audit = audit
    }

    /// A session in use, as the person's list shows it (without its handle: the export names nothing to act on).
    public struct Session: Codable, Sendable, Equatable {
        public var clientID: String
        public var clientName: String
        public var device: String?
        public var createdAt: Date
        public var lastUsedAt: Date

        enum CodingKeys: String, CodingKey, CaseIterable {
            case device
            case clientID = "client_id", clientName = "client_name", createdAt = "created", lastUsedAt = "last_used"
        }

        public init(_ listing: SessionListing) {
            clientID = listing.session.clientID
            clientName = listing.clientName
            device = listing.session.device
            createdAt = listing.session.createdAt
            lastUsedAt = listing.session.lastUsedAt
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(clientID, forKey: .clientID)
            try container.encode(clientName, forKey: .clientName)
            try container.encode(device, forKey: .device)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(lastUsedAt, forKey: .lastUsedAt)
        }
    }
}
