import CaptureJSON

/// The Janrain app this service replaces, as migration asks it (CaptureOutbound's `JanrainLegacyApp` over libcurl;
/// docs/adr/0065-sign-in-time-migration.md). Every call is bounded by the settings' timeouts and never throws: what
/// did not come back as Janrain's answer is `.failed`, which the breaker counts.
public protocol LegacyApp: Sendable {
    /// `/oauth/auth_native_traditional` with the address and password, as an SDK-era app signs in: the `uuid` of
    /// the `capture_user` it answers when the password is right.
    func signIn(email: String, password: String) async -> LegacyAnswer<String>
    /// `entity` with the owner client: the record `key` names, as the old app holds it.
    func record(_ key: LegacyRecordKey) async -> LegacyAnswer<JSONValue>
}

/// How a record is named to the old app: its `uuid`, or its address (`key_attribute=email`).
public enum LegacyRecordKey: Sendable, Equatable {
    case uuid(String)
    case email(String)
}

/// What the old app said.
public enum LegacyAnswer<Value: Sendable>: Sendable {
    /// The password is right / the record is there.
    case found(Value)
    /// A Janrain answer saying no: a wrong password, no such record. The old app is up.
    case refused
    /// No answer in time, a closed port, an HTTP error, or a body that is not Janrain's shape (the reason is for
    /// logs, never a body or a secret).
    case failed(String)
}
