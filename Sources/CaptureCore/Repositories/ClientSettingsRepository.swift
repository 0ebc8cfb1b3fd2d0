/// Whose settings: the app's defaults, or one client's own.
public enum SettingsScope: Sendable, Hashable {
    case defaults
    case client(String)
}

/// Storage of Janrain's client settings (key → text): the app's defaults and each client's own values, which go
/// with the client when it is removed. A change counts as a change of the clients (`ClientRepository.version`), so
/// whatever is kept under that version (`ClientSettingsAccess`) is read afresh after it.
public protocol ClientSettingsRepository: Sendable {
    /// The values of `scope` as stored (a client's own, without the defaults).
    func values(of scope: SettingsScope) async throws -> [String: String]
    /// Every client's own values by client id; clients without any are left out.
    func allClientValues() async throws -> [String: [String: String]]
    /// Sets `values` and removes `removing` in one transaction; answers which of the keys named had a value before.
    /// A client that does not exist has no settings to change: its scope is refused (`CaptureError.recordNotFound`).
    @discardableResult
    func change(_ scope: SettingsScope, set values: [String: String], removing: Set<String>) async throws -> Set<String>
}
