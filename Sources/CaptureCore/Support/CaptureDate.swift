import Foundation

/// Janrain's UTC timestamp format, `yyyy-MM-dd HH:mm:ss.SSSSSS +0000`.
public enum CaptureDate {
    /// Formatted by hand from `gmtime_r`: a `DateFormatter`, or even `String(format:)`, costs more than the
    /// rest of a token check.
    public static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(30)
        write(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The day of `date` in UTC, `yyyy-MM-dd` (for people: a day in every language's notation alike).
    public static func day(_ date: Date) -> String {
        String(format(date).prefix(10))
    }

    /// `format`'s text appended to `output` (what `/entity` writes for each of a record's dates).
    public static func write(_ date: Date, to output: inout [UInt8]) {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        // Millisecond precision, as the database keeps dates (GRDB), so a record reads the same before and after
        // it is stored; the 1.5 µs allowance absorbs floating-point error in dates read back from storage and
        // PostgreSQL's truncation to whole microseconds (a kept `created` of .587 came back as .586999).
        let millis = min(Int(((interval - Double(seconds)) * 1_000_000 + 1.5).rounded(.down)) / 1000, 999)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func append(_ number: Int, digits: Int) {
            var value = number
            if value < 0 {
                output.append(UInt8(ascii: "-"))
                value = -value
            }
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            // A year past 9999 keeps all its digits, as `String(value)` would.
            while divisor * 10 <= value { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        append(Int(parts.tm_year) + 1900, digits: 4)
        output.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mon) + 1, digits: 2)
        output.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mday), digits: 2)
        output.append(UInt8(ascii: " "))
        append(Int(parts.tm_hour), digits: 2)
        output.append(UInt8(ascii: ":"))
        append(Int(parts.tm_min), digits: 2)
        output.append(UInt8(ascii: ":"))
        append(Int(parts.tm_sec), digits: 2)
        output.append(UInt8(ascii: "."))
        append(millis, digits: 3)
        output.append(contentsOf: "000 +0000".utf8)
    }
}

extension CaptureDate {
    /// Compiled once: compiling it took most of the time of an import (three dates a record). An
    /// `NSRegularExpression` is immutable and safe to use from several threads.
    private static let pattern = try! NSRegularExpression(
        pattern: #"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})? ?(Z|[+-]\d{2}:?\d{2})$"#)

    /// Janrain's `yyyy-MM-dd HH:mm:ss[.ffffff] ±hhmm` or ISO 8601 `yyyy-MM-ddTHH:mm:ss[.fff](Z|±hh:mm)`.
    public static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= 40, let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return nil }
        func group(_ index: Int) -> String? {
            Range(match.range(at: index), in: text).map { String(text[$0]) }
        }
        guard let day = group(1).flatMap({ y in group(2).flatMap { m in group(3).map { "\(y)-\(m)-\($0)" } } }),
            AttributeDefinition.isCalendarDate(day), let hour = Int(group(4) ?? ""), let minute = Int(group(5) ?? ""),
            let second = Int(group(6) ?? ""), hour < 24, minute < 60, second < 60,
            let year = Int(group(1) ?? ""), let month = Int(group(2) ?? ""), let dayOfMonth = Int(group(3) ?? "")
        else { return nil }
        var offset = 0
        if let zone = group(8), zone != "Z" {
            let digits = zone.dropFirst().filter(\.isNumber)
            guard let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)), hours < 24, minutes < 60 else {
                return nil
            }
            offset = (hours * 3600 + minutes * 60) * (zone.hasPrefix("-") ? -1 : 1)
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(dayOfMonth)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let fraction = group(7).flatMap { Double("0" + $0) } ?? 0
        return Date(timeIntervalSince1970: Double(timegm(&parts) - offset) + fraction)
    }
}
