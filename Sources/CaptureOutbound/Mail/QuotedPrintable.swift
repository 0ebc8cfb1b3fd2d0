/// RFC 2045 quoted-printable for text bodies: readable where the text is ASCII, safe for any UTF-8.
enum QuotedPrintable {
    /// Encodes text whose line breaks are already CRLF. Lines stay within 76 characters (soft breaks "=" CRLF);
    /// spaces and tabs before a break are encoded so no relay can strip them; a "." that starts a line is encoded
    /// too, so the body never depends on the SMTP client's dot-stuffing.
    static func encode(_ text: String) -> String {
        var output = ""
        let lines = text.components(separatedBy: "\r\n")
        for (index, line) in lines.enumerated() {
            if index > 0 { output += "\r\n" }
            output += encodeLine(Array(line.utf8))
        }
        return output
    }

    private static func encodeLine(_ bytes: [UInt8]) -> String {
        var output = ""
        var lineLength = 0
        for (index, byte) in bytes.enumerated() {
            let isLast = index == bytes.count - 1
            let literal =
                (byte >= 0x21 && byte <= 0x7E && byte != UInt8(ascii: "="))
                || ((byte == 0x20 || byte == 0x09) && !isLast)
            let piece: String
            if literal && !(byte == UInt8(ascii: ".") && lineLength == 0) {
                piece = String(UnicodeScalar(byte))
            } else {
                piece = "=" + hex(byte)
            }
            // Keep room for the "=" of a soft break: at most 75 characters before it.
            if lineLength + piece.count > 75 {
                output += "=\r\n"
                lineLength = 0
                if piece == "." {
                    output += "=2E"
                    lineLength = 3
                    continue
                }
            }
            output += piece
            lineLength += piece.count
        }
        return output
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
