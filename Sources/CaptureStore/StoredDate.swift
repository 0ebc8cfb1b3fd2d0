import Foundation

/// A date as GRDB stores it, "yyyy-MM-dd HH:mm:ss.SSS" in UTC, written from the number: GRDB's own encoding goes
/// through a shared `DateFormatter` (ICU, and a lock every thread takes), which cost a refresh rotation more than
/// its SQL. The text is the same, byte for byte (tests compare the two), so what is written here GRDB reads back as
/// any date it stored itself, and comparisons in SQL keep working. For the hot paths' statements.
enum StoredDate {
    static func text(_ date: Date) -> String {
        // Whole milliseconds as Foundation hands them to ICU (from the reference date, plus half a millisecond, then
        // rounded down); then days and the time of day.
        let milliseconds = Int64(((date.timeIntervalSinceReferenceDate + 978_307_200) * 1000 + 0.5).rounded(.down))
        let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(23)
        append(year, digits: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        append(dayMilliseconds / 3_600_000, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(dayMilliseconds / 60_000 % 60, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(dayMilliseconds / 1000 % 60, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        append(dayMilliseconds % 1000, digits: 3, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` of an optional date.
    static func text(_ date: Date?) -> String? { date.map { text($0) } }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func append(_ value: Int64, digits: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
