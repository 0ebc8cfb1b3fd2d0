import Foundation

/// `webhooks` in service.json: how events are delivered (docs/webhooks.md).
public struct WebhookSettings: Sendable, Equatable, Decodable {
    /// Standard Webhooks' schedule: the pause before each attempt after the first (immediately, then 5 s, 5 min,
    /// 30 min, 2 h, 5 h, 10 h, 10 h); the event fails after the last.
    public static let standardSchedule: [Double] = [5, 300, 1800, 7200, 18000, 36000, 36000]

    /// Seconds before the 2nd, 3rd, … attempt (tests compress it).
    public var retrySchedule: [Double] = WebhookSettings.standardSchedule
    /// Failed and delivered events are kept this many days for redelivery and the history.
    public var retentionDays: Double = 7
    public var connectTimeoutSeconds: Double = 5
    public var totalTimeoutSeconds: Double = 15
    /// Plain `http://` listeners, allowed only on loopback (a listener on the same machine, tests).
    public var allowPlainHTTP = false
    /// How often the delivery loop looks for due events when nothing woke it.
    public var pollSeconds: Double = 1
    /// How long a rotated secret still signs deliveries beside the new one, unless the rotation says otherwise.
    public var rotationOverlapHours: Double = 24

    public init() {}

    enum CodingKeys: String, CodingKey {
        case retrySchedule, retentionDays, connectTimeoutSeconds, totalTimeoutSeconds, allowPlainHTTP, pollSeconds
        case rotationOverlapHours
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let value = try c.decodeIfPresent([Double].self, forKey: .retrySchedule) { retrySchedule = value }
        if let value = try c.decodeIfPresent(Double.self, forKey: .retentionDays) { retentionDays = value }
        if let value = try c.decodeIfPresent(Double.self, forKey: .connectTimeoutSeconds) { connectTimeoutSeconds = value }
        if let value = try c.decodeIfPresent(Double.self, forKey: .totalTimeoutSeconds) { totalTimeoutSeconds = value }
        if let value = try c.decodeIfPresent(Bool.self, forKey: .allowPlainHTTP) { allowPlainHTTP = value }
        if let value = try c.decodeIfPresent(Double.self, forKey: .pollSeconds) { pollSeconds = value }
        if let value = try c.decodeIfPresent(Double.self, forKey: .rotationOverlapHours) { rotationOverlapHours = value }
    }

    /// The problem with these values, if any: (key, problem).
    func problem() -> (String, String)? {
        if retrySchedule.count > 20 || retrySchedule.contains(where: { $0 < 0 || $0 > 7 * 86400 }) {
            return ("webhooks.retrySchedule", "must be at most 20 pauses, each from 0 to 604800 seconds")
        }
        if retentionDays <= 0 || retentionDays > 365 { return ("webhooks.retentionDays", "must be above 0 and at most 365") }
        if connectTimeoutSeconds <= 0 || totalTimeoutSeconds <= 0 || totalTimeoutSeconds > 300 {
            return ("webhooks.totalTimeoutSeconds", "timeouts must be above 0, the total at most 300")
        }
        if pollSeconds <= 0 || pollSeconds > 60 { return ("webhooks.pollSeconds", "must be above 0 and at most 60") }
        if rotationOverlapHours < 0 || rotationOverlapHours > 24 * 30 {
            return ("webhooks.rotationOverlapHours", "must be from 0 to 720")
        }
        return nil
    }

    /// Whether `url` may be a listener: https, or http to a loopback host when `allowPlainHTTP`; no user, password or
    /// fragment. The problem, or nil.
    public func problem(withEndpoint url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host,
            !host.isEmpty
        else { return "must be an absolute URL" }
        guard parts.user == nil, parts.password == nil, parts.fragment == nil else {
            return "must not hold a user, a password or a fragment"
        }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return "must not hold spaces or non-ASCII characters" }
        if scheme == "https" { return nil }
        guard scheme == "http" else { return "must be https://" }
        guard allowPlainHTTP, Self.isLoopback(host) else {
            return "must be https:// (http:// only to loopback, with webhooks.allowPlainHTTP)"
        }
        return nil
    }

    static func isLoopback(_ host: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
