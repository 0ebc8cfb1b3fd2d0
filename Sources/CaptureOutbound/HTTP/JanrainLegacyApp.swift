import CaptureCore
import CaptureJSON
import Foundation

/// The Janrain app being replaced, over libcurl (`LegacyApp`): its `/oauth/auth_native_traditional` called exactly as
/// an SDK-era app calls it (form fields `client_id`, `flow`, `flow_version`, `locale`, `redirect_uri`,
/// `response_type=token`, `form`, `signInEmailAddress`, `currentPassword`), and its `entity` with the owner client
/// (HTTP Basic, the secret never in a form or a URL). Each call is bounded by the settings' connect and total
/// timeouts and 256 KiB back, follows no redirect, and reads the reply with the bounded JSON parser; anything but
/// Janrain's answer shape is `.failed`.
public struct JanrainLegacyApp: LegacyApp {
    let settings: LegacyJanrainSettings
    let authorization: String
    let client: OutboundHTTPClient

    /// `client`: unless given, one of its own with a libcurl thread for each call `maxConcurrentCalls` lets run, so a
    /// call never waits for a thread (its timeout is all it can take) and a slow old app never delays the social
    /// providers' calls on the shared threads.
    public init(settings: LegacyJanrainSettings, secret: String, client: OutboundHTTPClient? = nil) {
        self.settings = settings
        self.authorization = "Basic " + Data("\(settings.clientId):\(secret)".utf8).base64EncodedString()
        self.client =
            client ?? OutboundHTTPClient(client: CurlClient(threadCount: settings.resolvedMaxConcurrentCalls))
    }

    public func signIn(email: String, password: String) async -> LegacyAnswer<String> {
        var form: [(String, String)] = [
            ("client_id", settings.loginClientId), ("flow", settings.flow ?? "standard"),
        ]
        if let version = settings.flowVersion { form.append(("flow_version", version)) }
        form.append(("locale", settings.locale ?? "en-US"))
        if let redirect = settings.redirectUri { form.append(("redirect_uri", redirect)) }
        form += [
            ("response_type", "token"), ("form", settings.signInForm ?? "signInForm"), ("signInEmailAddress", email),
            ("currentPassword", password),
        ]
        let reply: [String: JSONValue]
        switch await call("/oauth/auth_native_traditional", form: form, authorized: false) {
        case .failure(let reason): return .failed(reason)
        case .success(let members): reply = members
        }
        switch Self.stat(of: reply) {
        case .ok:
            guard case .object(let user)? = reply["capture_user"], case .string(let uuid)? = user["uuid"], !uuid.isEmpty
            else { return .failed("sign-in answered ok without capture_user.uuid") }
            return .found(uuid)
        // 210: invalid credentials (the wrong password, or no such address); 310: no such record.
        case .error(210), .error(310): return .refused
        case .error(let code): return .failed("sign-in answered error \(code)")
        case .notJanrain: return .failed("sign-in answered something that is not Janrain's reply")
        }
    }

    public func record(_ key: LegacyRecordKey) async -> LegacyAnswer<JSONValue> {
        var form: [(String, String)] = [("type_name", settings.entityType ?? "user")]
        switch key {
        case .uuid(let uuid): form.append(("uuid", uuid))
        case .email(let email):
            form.append(("key_attribute", "email"))
            form.append(("key_value", String(decoding: JSONValue.string(email).encodedBytes(), as: UTF8.self)))
        }
        let reply: [String: JSONValue]
        switch await call("/entity", form: form, authorized: true) {
        case .failure(let reason): return .failed(reason)
        case .success(let members): reply = members
        }
        switch Self.stat(of: reply) {
        case .ok:
            guard case .object? = reply["result"], let result = reply["result"] else {
                return .failed("entity answered ok without a result object")
            }
            return .found(result)
        case .error(310): return .refused
        case .error(let code): return .failed("entity answered error \(code)")
        case .notJanrain: return .failed("entity answered something that is not Janrain's reply")
        }
    }

    enum Stat: Equatable {
        case ok
        case error(Int64)
        case notJanrain
    }

    /// Janrain answers `stat` "ok", or "error" with a numeric `code` (errors come with HTTP 200 too).
    static func stat(of reply: [String: JSONValue]) -> Stat {
        switch reply["stat"] {
        case .string("ok")?: return .ok
        case .string("error")?:
            guard case .int(let code)? = reply["code"] else { return .notJanrain }
            return .error(code)
        default: return .notJanrain
        }
    }

    /// POSTs the form and answers the reply's JSON object; a failure's reason names the call and the kind of failure.
    func call(_ path: String, form: [(String, String)], authorized: Bool) async -> Reply {
        var headers = [
            OutboundHTTPHeader(name: "Accept", value: "application/json"),
            OutboundHTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded"),
        ]
        if authorized { headers.append(OutboundHTTPHeader(name: "Authorization", value: authorization)) }
        let body = FormBody.encoded(form)
        let request = OutboundHTTPRequest(
            method: .post, url: settings.base + path, headers: headers, body: Data(body.utf8),
            connectTimeoutSeconds: settings.resolvedConnectTimeout, totalTimeoutSeconds: settings.resolvedTimeout,
            maxResponseBytes: 262_144, maxRedirects: 0, allowsPlainHTTP: settings.allowPlainHTTP == true)
        let response: OutboundHTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            return .failure("\(path): \(error.kind)")
        }
        // Janrain answers its errors with 200 too; a 4xx/5xx is a proxy's or a broken app's page.
        guard response.status == 200 else { return .failure("\(path): HTTP \(response.status)") }
        guard case .object(let members) = try? JSONParser.parse(response.body, limits: Self.limits) else {
            return .failure("\(path): the body is not a JSON object")
        }
        return .success(members)
    }

    enum Reply {
        case success([String: JSONValue])
        /// Why there is no Janrain reply (never a body or a secret).
        case failure(String)
    }

    static let limits = JSONParser.Limits(
        maxInputBytes: 262_144, maxDepth: 32, maxValues: 20_000, maxStringBytes: 65_536, maxNumberBytes: 64)
}

/// The owner client's secret is in `authorization`: the app describes itself by the old app's origin alone
/// (Redaction.swift's rule for values that hold secrets).
extension JanrainLegacyApp: CustomStringConvertible, CustomReflectable {
    public var description: String { "JanrainLegacyApp(\(settings.base), secret redacted)" }
    public var customMirror: Mirror { Mirror(self, children: ["base": settings.base], displayStyle: .struct) }
}
