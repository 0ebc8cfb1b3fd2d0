import CaptureJSON

/// `settings/*`: a client's settings (`for_client_id`, else the caller's own) over the app's defaults. Values are
/// text; keys and values are checked as every path checks them (`ClientSettingRules`).
extension ClientSettingsService {
    /// `settings/items`: the client's settings over the defaults.
    public func items(by caller: Client, forClientID: String?) async throws -> JSONValue {
        let client = try await target(forClientID, caller: caller)
        let items = try await settingsAccess.items(for: client.clientID)
        return ["result": .object(items.mapValues(JSONValue.string))]
    }

    /// `settings/get`: one key's value, the client's own or the default; null when neither has one.
    public func get(by caller: Client, key: String?, forClientID: String?) async throws -> JSONValue {
        let key = try Self.key(key)
        let client = try await target(forClientID, caller: caller)
        return ["result": .optional(try await settingsAccess.value(key, for: client.clientID))]
    }

    /// `settings/get_multi`: the values of `keys` (a JSON list), null for those without one.
    public func getMulti(by caller: Client, keys: String?, forClientID: String?) async throws -> JSONValue {
        let keys = try ServerArguments.strings(try ServerArguments.required(keys, "keys"), "keys")
        for key in keys { _ = try Self.key(key, argument: "keys") }
        let items = try await settingsAccess.items(for: try await target(forClientID, caller: caller).clientID)
        return ["result": .object(Dictionary(keys.map { ($0, JSONValue.optional(items[$0])) }) { first, _ in first })]
    }

    /// `settings/set`: one of the client's own settings; answers whether the key had a value of the client's before.
    public func set(by caller: Client, key: String?, value: String?, forClientID: String?) async throws -> JSONValue {
        let client = try await target(forClientID, caller: caller)
        let items = [try Self.key(key): try Self.value(value)]
        let existed = try await write(items, removing: [], of: client, by: caller)
        return ["result": .bool(!existed.isEmpty)]
    }

    /// `settings/set_multi`: several of the client's own settings (`items`, a JSON object of strings), at once;
    /// answers for each key whether it had a value of the client's before.
    public func setMulti(by caller: Client, items: String?, forClientID: String?) async throws -> JSONValue {
        let items = try ServerArguments.stringObject(try ServerArguments.required(items, "items"), "items")
        guard !items.isEmpty else { throw CaptureError.invalidArgument("items", "must name at least one setting") }
        let client = try await target(forClientID, caller: caller)
        let existed = try await write(items, removing: [], of: client, by: caller)
        return ["result": .object(Dictionary(uniqueKeysWithValues: items.keys.map { ($0, .bool(existed.contains($0))) }))]
    }

    /// `settings/delete`: removes one of the client's own settings (the default, if any, then applies); answers
    /// whether it had one.
    public func delete(by caller: Client, key: String?, forClientID: String?) async throws -> JSONValue {
        let key = try Self.key(key)
        let client = try await target(forClientID, caller: caller)
        let existed = try await write([:], removing: [key], of: client, by: caller)
        return ["result": .bool(!existed.isEmpty)]
    }

    /// `settings/set_default`: an app-wide default; answers whether the key had one before.
    public func setDefault(by caller: Client, key: String?, value: String?) async throws -> JSONValue {
        let items = [try Self.key(key): try Self.value(value)]
        let existed = try await write(items, removing: [], of: nil, by: caller)
        return ["result": .bool(!existed.isEmpty)]
    }

    /// `settings/delete_default`: removes an app-wide default; answers whether there was one.
    public func deleteDefault(by caller: Client, key: String?) async throws -> JSONValue {
        let existed = try await write([:], removing: [try Self.key(key)], of: nil, by: caller)
        return ["result": .bool(!existed.isEmpty)]
    }

    /// `settings/get_all`: the defaults and every client's own settings, keyed by client id.
    public func getAll(by caller: Client) async throws -> JSONValue {
        let defaults = try await clientSettings.values(of: .defaults)
        let own = try await clientSettings.allClientValues()
        return [
            "default_settings": .object(defaults.mapValues(JSONValue.string)),
            "client_settings": .object(own.mapValues { .object($0.mapValues(JSONValue.string)) }),
        ]
    }
}

extension ClientSettingsService {
    /// The client `for_client_id` names, else the caller.
    func target(_ forClientID: String?, caller: Client) async throws -> Client {
        guard let id = forClientID, !id.isEmpty, id != caller.clientID else { return caller }
        return try await client(id)
    }

    /// Checks and writes settings of `client` (nil: the defaults), audited as the caller's; answers which of the
    /// keys named had a value before.
    func write(
        _ items: [String: String], removing: Set<String>, of client: Client?, by caller: Client
    ) async throws
        -> Set<String>
    {
        try ClientAdministration.checkSettings(items, of: client)
        let scope = client.map { SettingsScope.client($0.clientID) } ?? .defaults
        let names = (Array(items.keys) + Array(removing)).sorted().joined(separator: ",")
        let action =
            client == nil
            ? (removing.isEmpty ? "settings.set_default" : "settings.delete_default")
            : (removing.isEmpty ? "settings.set" : "settings.delete")
        return try await audit.audited(
            action, target: client?.clientID ?? "defaults", by: .client(caller.clientID), detail: { _ in names }
        ) {
            try await clientSettings.change(scope, set: items, removing: removing)
        }
    }

    static func key(_ text: String?, argument: String = "key") throws -> String {
        let key = try ServerArguments.required(text, argument)
        if let problem = ClientSettingRules.problem(withKey: key) { throw CaptureError.invalidArgument(argument, problem) }
        return key
    }

    static func value(_ text: String?) throws -> String {
        guard let text else { throw CaptureError.missingArgument("value") }
        return text
    }
}
