import Foundation

/// One value of a unique schema attribute, claimed by a record (`user_unique`).
public struct UniqueValueClaim: Sendable, Equatable {
    public var attribute: String
    public var value: String
    public var userID: String

    public init(attribute: String, value: String, userID: String) {
        self.attribute = attribute
        self.value = value
        self.userID = userID
    }
}

/// One stored client setting: the app's default or a client's own.
public struct StoredSetting: Sendable, Equatable {
    public var scope: SettingsScope
    public var key: String
    public var value: String

    public init(scope: SettingsScope, key: String, value: String) {
        self.scope = scope
        self.key = key
        self.value = value
    }
}

/// One throttle counter as stored: its hashed key and state.
public struct StoredThrottle: Sendable, Equatable {
    public var key: String
    public var state: ThrottleState

    public init(key: String, state: ThrottleState) {
        self.key = key
        self.state = state
    }
}

/// A webhook delivery attempt with the id its store gave it.
public struct StoredWebhookAttempt: Sendable, Equatable {
    public var id: Int64
    public var attempt: WebhookAttempt

    public init(id: Int64, attempt: WebhookAttempt) {
        self.id = id
        self.attempt = attempt
    }
}
