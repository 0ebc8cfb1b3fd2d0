import Foundation

/// RFC 2047 encoded-words, for header text that is not plain ASCII (subjects and display names).
enum EncodedWord {
    /// An encoded-word is at most 75 characters; "=?UTF-8?B?" and "?=" take 12, leaving 63 for base64, which is
    /// 45 bytes of UTF-8 (a multiple of 3, so no word carries padding in the middle of the text).
    private static let bytesPerWord = 45

    /// Subject text: as it is when printable ASCII (and no "=?" that a reader would try to decode), otherwise
    /// encoded-words folded onto continuation lines. Never splits a character between two words.
    static func unstructured(_ text: String) -> String {
        if isPlain(text) { return text }
        return words(text).joined(separator: "\r\n ")
    }

    /// A display name: quoted when ASCII, encoded-words otherwise.
    static func phrase(_ text: String) -> String {
        if isPlain(text) {
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(escaped)\""
        }
        return words(text).joined(separator: "\r\n ")
    }

    private static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && !text.contains("=?") && text.utf8.count <= 900
    }

    private static func words(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > bytesPerWord, !chunk.isEmpty {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?\(Data(bytes).base64EncodedString())?="
    }
}
