import Crypto
import CryptoExtras

/// PBKDF2 with HMAC-SHA-1, -SHA-256 or -SHA-512 (RFC 8018): Janrain's `password-pbkdf2-*` and passlib's
/// `$pbkdf2$`, `$pbkdf2-sha256$`, `$pbkdf2-sha512$`. Stored as `<iterations>$<salt hex>$<derived key hex>`; the
/// derived key's length is the one the hash was made with.
struct PBKDF2Hash: Sendable, Equatable {
    enum Format: String, CaseIterable, Sendable {
        case sha1 = "pbkdf2-sha1", sha256 = "pbkdf2-sha256", sha512 = "pbkdf2-sha512"
    }

    var format: Format
    var iterations: Int
    var salt: [UInt8]
    var key: [UInt8]

    init(format: Format, iterations: Int, salt: [UInt8], key: [UInt8]) throws(LegacyHashError) {
        guard iterations >= 1 else { throw .malformed("PBKDF2 needs at least one iteration") }
        guard (8...LegacyHashCosts.outputBytes).contains(key.count) else {
            throw .malformed("a PBKDF2 key of \(key.count) bytes (8 to \(LegacyHashCosts.outputBytes) are taken)")
        }
        guard salt.count <= LegacyHashCosts.saltBytes else { throw .malformed("the salt is longer than 1 KiB") }
        let blocks = (key.count + format.blockLength - 1) / format.blockLength
        guard iterations.multipliedReportingOverflow(by: blocks).partialValue <= LegacyHashCosts.pbkdf2Work,
            iterations <= LegacyHashCosts.pbkdf2Work
        else {
            throw .tooCostly(
                "PBKDF2 of \(iterations) iterations × \(blocks) blocks; at most \(LegacyHashCosts.pbkdf2Work) are taken")
        }
        self.format = format
        self.iterations = iterations
        self.salt = salt
        self.key = key
    }

    init(format: Format, stored: Substring) throws(LegacyHashError) {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 3, let iterations = Int(parts[0]), let salt = LegacyEncoding.hex(parts[1]),
            let key = LegacyEncoding.hex(parts[2])
        else { throw .malformed("not a stored \(format.rawValue) hash") }
        try self.init(format: format, iterations: iterations, salt: salt, key: key)
    }

    var stored: String { "\(iterations)$" + LegacyEncoding.hex(salt) + "$" + LegacyEncoding.hex(key) }

    func matches(_ password: [UInt8]) -> Bool {
        guard
            let derived = try? KDF.Insecure.PBKDF2.deriveKey(
                from: password, salt: salt, using: format.function, outputByteCount: key.count,
                unsafeUncheckedRounds: iterations)
        else { return false }
        return ConstantTime.equal(derived.withUnsafeBytes { Array($0) }, key)
    }
}

extension PBKDF2Hash.Format {
    var blockLength: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    var function: KDF.Insecure.PBKDF2.HashFunction {
        switch self {
        case .sha1: .insecureSHA1
        case .sha256: .sha256
        case .sha512: .sha512
        }
    }
}
