import Foundation

/// Janrain's UTC timestamp format, `yyyy-MM-dd HH:mm:ss.SSSSSS +0000`.
public enum CaptureDate {
    /// Formatted by hand from `gmtime_r`: a `DateFormatter`, or even `String(format:)`, costs more than the
    /// rest of a token check.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        // Millisecond precision, as the database keeps dates (GRDB), so a record reads the same before and after
        // it is stored; the 0.5 µs allowance absorbs floating-point error in dates read back from storage.
        let millis = min(Int(((interval - Double(seconds)) * 1000 + 0.0005).rounded(.down)), 999)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(32)
        func append(_ value: Int, digits: Int) {
            let string = String(value)
            text += String(repeating: "0", count: max(0, digits - string.count)) + string
        }
        append(Int(parts.tm_year) + 1900, digits: 4)
        text += "-"
        append(Int(parts.tm_mon) + 1, digits: 2)
        text += "-"
        append(Int(parts.tm_mday), digits: 2)
        text += " "
        append(Int(parts.tm_hour), digits: 2)
        text += ":"
        append(Int(parts.tm_min), digits: 2)
        text += ":"
        append(Int(parts.tm_sec), digits: 2)
        text += "."
        append(millis, digits: 3)
        text += "000 +0000"
        return text
    }
}
