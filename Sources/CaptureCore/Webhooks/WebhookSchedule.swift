import Foundation

/// When an event is tried again, and when it is given up (docs/webhooks.md, "Retries").
public enum WebhookSchedule {
    /// The longest `Retry-After` honoured (a day); a longer one waits this long.
    public static let longestRetryAfter: TimeInterval = 86400

    /// After the `attempts`th failed attempt: the pause before the next one, or nil when the event fails (the
    /// schedule is spent). A `Retry-After` (seconds, or an HTTP date) with a 429 or 503 is honoured when it asks for
    /// longer than the schedule, up to `longestRetryAfter`.
    public static func pause(
        afterAttempt attempts: Int, schedule: [TimeInterval], status: Int?, retryAfter: String?, now: Date
    ) -> TimeInterval? {
        guard attempts >= 1, attempts <= schedule.count else { return nil }
        let planned = schedule[attempts - 1]
        guard status == 429 || status == 503, let asked = retryAfterSeconds(retryAfter, now: now) else { return planned }
        return max(planned, min(asked, longestRetryAfter))
    }

    /// RFC 9110's `Retry-After`: delay-seconds or an HTTP date.
    public static func retryAfterSeconds(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
