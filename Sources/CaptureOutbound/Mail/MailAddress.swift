import Foundation

/// An address as it appears in From/To: an optional display name and the bare address the envelope uses.
struct MailAddress: Equatable {
    var displayName: String?
    var address: String

    /// Reads `addr@example.com` or `Name <addr@example.com>` (the name optionally in double quotes). The bare address
    /// must be printable ASCII without spaces or brackets: SMTPUTF8 is not used, and anything else is a typo or an
    /// attempt to add a second recipient or header.
    init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            var name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
                name = String(name.dropFirst().dropLast())
            }
            displayName = name.isEmpty ? nil : name
        } else {
            address = trimmed
        }
        let bytes = Array(address.utf8)
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1,
            bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"<>()[],;:\\\"".utf8.contains($0) })
        else { return nil }
        if let displayName, displayName.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return nil
        }
    }

    var domain: Substring { address[address.index(after: address.lastIndex(of: "@")!)...] }

    /// The header form: the name as an RFC 2047 encoded-word when it is not plain ASCII, quoted otherwise.
    var headerValue: String {
        guard let displayName else { return address }
        return "\(EncodedWord.phrase(displayName)) <\(address)>"
    }
}
