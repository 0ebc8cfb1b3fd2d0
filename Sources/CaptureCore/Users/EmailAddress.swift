/// The one address syntax every path accepts (forms, import, the admin API, entity updates, providers' claims, mail):
/// a plain `local@domain`. The local part is RFC 5322's dot-atom (no quoted string, comment, display name, angle
/// bracket or space, so what is stored is exactly the mailbox that receives the code); the domain is ASCII letters,
/// digits and hyphens in dot-separated labels (an internationalised domain in its punycode form, `xn--…`), with at
/// least two labels. At most 64 characters before the `@`, 254 in all.
public enum EmailAddress {
    public static func isPlain(_ address: String) -> Bool {
        let bytes = Array(address.utf8)
        guard bytes.count <= 254, let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at <= 64 else { return false }
        return isDotAtom(bytes[..<at]) && isDomain(bytes[(at + 1)...])
    }

    /// RFC 5322 §3.2.3 atext runs joined by single dots.
    static func isDotAtom(_ local: ArraySlice<UInt8>) -> Bool {
        let specials = Set("!#$%&'*+-/=?^_`{|}~".utf8)
        var previousDot = true
        for byte in local {
            if byte == UInt8(ascii: ".") {
                if previousDot { return false }
                previousDot = true
            } else if isLetterOrDigit(byte) || specials.contains(byte) {
                previousDot = false
            } else {
                return false
            }
        }
        return !previousDot
    }

    /// Two or more LDH labels of 1–63 characters, none starting or ending with a hyphen.
    static func isDomain(_ domain: ArraySlice<UInt8>) -> Bool {
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2, domain.count <= 253 else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                && label.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
        }
    }

    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
