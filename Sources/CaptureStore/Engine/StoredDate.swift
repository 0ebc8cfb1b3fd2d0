import Foundation
import GRDB
import GRDBSQLite

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

    /// Where `text` puts its separators: "-", "-", " ", ":", ":", ".".
    private static let separators: [(offset: Int, byte: UInt8)] = [
        (4, 0x2D), (7, 0x2D), (10, 0x20), (13, 0x3A), (16, 0x3A), (19, 0x2E),
    ]

    /// The date `text` wrote, from its 23 bytes, as GRDB reads it (tests compare the two); nil for any other text.
    static func date(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 23 else { return nil }
        var valid = true
        func number(_ range: Range<Int>) -> Int64 {
            var value: Int64 = 0
            for index in range {
                let digit = text[index] &- UInt8(ascii: "0")
                valid = valid && digit < 10
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard separators.allSatisfy({ text[$0.offset] == $0.byte }) else { return nil }
        let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
        let (hour, minute, second, millisecond) = (number(11..<13), number(14..<16), number(17..<19), number(20..<23))
        guard valid, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        // Added up in Foundation's order (the time of day with its fraction, then the whole days since the reference
        // date): near 2001-01-01 another order rounds some dates to the next `Double`.
        let timeOfDay = Double(hour * 3600 + minute * 60 + second) + Double(millisecond * 1_000_000) / 1e9
        let daysSinceReference = days(fromCivil: year, month, day) - 11_323
        return Date(timeIntervalSinceReferenceDate: Double(daysSinceReference * 86_400) + timeOfDay)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

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

/// A date column of a hot path's row: read by `StoredDate.date` from the text SQLite hands over, without GRDB's
/// `DateComponents` and `Calendar` (a tenth of `/entity`'s record work went to its user's four dates); any other
/// stored form is read as GRDB reads it.
struct StoredInstant: DatabaseValueConvertible, StatementColumnConvertible {
    let date: Date

    init(_ date: Date) { self.date = date }

    init?(sqliteStatement: SQLiteStatement, index: CInt) {
        if sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT, let text = sqlite3_column_text(sqliteStatement, index),
            let date = StoredDate.date(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(sqliteStatement, index))))
        {
            self.date = date
        } else {
            guard let date = Date(sqliteStatement: sqliteStatement, index: index) else { return nil }
            self.date = date
        }
    }

    var databaseValue: DatabaseValue { date.databaseValue }

    static func fromDatabaseValue(_ value: DatabaseValue) -> StoredInstant? {
        Date.fromDatabaseValue(value).map(StoredInstant.init)
    }
}
