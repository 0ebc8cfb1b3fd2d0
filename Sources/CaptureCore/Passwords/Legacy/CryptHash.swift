import CXCrypt

/// The crypt(3) methods Janrain names `password-crypt-md5` (`$1$`), `-sha256` (`$5$`), `-sha512` (`$6$`) and `-des`
/// (13 characters, the traditional DES crypt: only the first 8 characters of a password count), checked with
/// libxcrypt's `crypt_rn`: the typed password is crypted with the stored string as setting and the results compared in
/// constant time. Stored as the crypt string itself.
struct CryptHash: Sendable, Equatable {
    enum Format: String, CaseIterable, Sendable {
        case md5 = "crypt-md5", sha256 = "crypt-sha256", sha512 = "crypt-sha512", des = "crypt-des"
    }

    var format: Format
    var text: String

    init(format: Format, text: String) throws(LegacyHashError) {
        let bytes = Array(text.utf8)
        let alphabet = { (byte: UInt8) in
            byte == 46 || byte == 47 || (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
        }
        switch format {
        case .des:
            guard bytes.count == 13, bytes.allSatisfy(alphabet) else {
                throw .malformed("a DES crypt hash is 13 characters of ./0-9A-Za-z")
            }
        case .md5, .sha256, .sha512:
            let id = format == .md5 ? "1" : format == .sha256 ? "5" : "6"
            let checksum = format == .md5 ? 22 : format == .sha256 ? 43 : 86
            guard text.hasPrefix("$\(id)$") else { throw .malformed("a \(format.rawValue) hash begins with $\(id)$") }
            var fields = text.dropFirst(3).split(separator: "$", omittingEmptySubsequences: false)
            if format != .md5, let first = fields.first, first.hasPrefix("rounds=") {
                guard first.count <= 17, let rounds = Int(first.dropFirst(7)), rounds >= 1 else {
                    throw .malformed("rounds= is a whole number")
                }
                guard rounds <= LegacyHashCosts.shaCryptRounds else {
                    throw .tooCostly("\(format.rawValue) with \(rounds) rounds; at most \(LegacyHashCosts.shaCryptRounds)")
                }
                fields.removeFirst()
            }
            guard fields.count == 2, (1...(format == .md5 ? 8 : 16)).contains(fields[0].utf8.count),
                fields[0].utf8.allSatisfy(alphabet), fields[1].utf8.count == checksum, fields[1].utf8.allSatisfy(alphabet)
            else { throw .malformed("a \(format.rawValue) hash is $\(id)$[rounds=N$]salt$ and \(checksum) characters") }
        }
        self.format = format
        self.text = text
    }

    var stored: String { text }

    func matches(_ password: [UInt8]) -> Bool {
        guard !password.contains(0) else { return false }
        var data = crypt_data()
        let produced: [UInt8]? = withUnsafeMutableBytes(of: &data) { buffer in
            guard
                let result = crypt_rn(password.map { CChar(bitPattern: $0) } + [0], text, buffer.baseAddress, Int32(buffer.count))
            else { return nil }
            return Array(String(cString: result).utf8)
        }
        guard let produced else { return false }
        return ConstantTime.equal(produced, Array(text.utf8))
    }
}
