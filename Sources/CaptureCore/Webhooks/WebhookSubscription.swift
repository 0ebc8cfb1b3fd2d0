import Foundation

/// What a webhook subscription can be told about: Janrain's three entity events (Webhooks v3) and the security
/// events operators ask for.
public enum WebhookEventType: String, Sendable, Codable, CaseIterable, Comparable {
    case entityCreated, entityUpdated, entityDeleted
    case signInFailed, signInThrottled, passwordChanged, emailChanged
    case secondFactorAdded, secondFactorRemoved, passkeyAdded, passkeyRemoved
    case accountDeactivated, accountReactivated, accountErased, tokensRevoked, consentChanged, termsAccepted
    /// A test send (`capturectl webhook test`): delivered to one subscription, whatever its events.
    case ping

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A name an operator gave, or `invalid_argument` naming `field`.
    public static func parsed(_ name: String, field: String = "events") throws -> Self {
        guard let type = Self(rawValue: name), type != .ping else {
            throw CaptureError.invalidArgument(
                field, "unknown event \(name); known: \(allCases.filter { $0 != .ping }.map(\.rawValue).joined(separator: ", "))")
        }
        return type
    }
}

/// How deliveries are signed (Standard Webhooks): `v1` HMAC-SHA256 with a shared `whsec_` secret (the default), or
/// `v1a` Ed25519, whose public key (`whpk_`) the receiver holds.
public enum WebhookSigning: String, Sendable, Codable, CaseIterable {
    case v1, v1a
}

/// A listener and what it wants to hear (Janrain's Webhooks v3 subscription: title, endpoint, events, enabled, and
/// filters by client and by changed attribute). Its secrets are kept sealed under the code key: the service needs
/// them to sign, so they cannot be kept as hashes.
public struct WebhookSubscription: Sendable, Equatable {
    public var id: String
    /// Janrain's `title`: 2 to 200 characters, unique.
    public var title: String
    /// Janrain's `endpoint`: https, or http on loopback when the settings allow it.
    public var endpoint: String
    public var events: [WebhookEventType]
    /// Only changes made by these clients (empty: any, changes without a client included).
    public var clients: [String]
    /// `entityUpdated` only when one of these attributes changed (empty: any).
    public var attributes: [String]
    /// Whether `entityUpdated` carries the changed values too (never a password or a hash).
    public var includeValues: Bool
    public var enabled: Bool
    /// Why the service disabled it (a 410 from the listener); nil when an operator did, or when enabled.
    public var disabledReason: String?
    public var signing: WebhookSigning
    /// The signing secret, sealed (`CodeKey.seal`).
    public var sealedSecret: String
    /// The secret before a rotation, sealed, and until when deliveries are signed with it too.
    public var sealedPreviousSecret: String?
    public var previousSecretExpiresAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, title: String, endpoint: String, events: [WebhookEventType], clients: [String] = [],
        attributes: [String] = [], includeValues: Bool = false, enabled: Bool = true, signing: WebhookSigning = .v1,
        sealedSecret: String, createdAt: Date
    ) {
        self.id = id
        self.title = title
        self.endpoint = endpoint
        self.events = events
        self.clients = clients
        self.attributes = attributes
        self.includeValues = includeValues
        self.enabled = enabled
        self.signing = signing
        self.sealedSecret = sealedSecret
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    /// The sealed secrets deliveries are signed with at `now`: the current one, and the previous one until it expires.
    public func sealedSecrets(at now: Date) -> [String] {
        var secrets = [sealedSecret]
        if let previous = sealedPreviousSecret, let until = previousSecretExpiresAt, until > now { secrets.append(previous) }
        return secrets
    }
}
