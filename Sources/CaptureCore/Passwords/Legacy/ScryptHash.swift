import Crypto
import CryptoExtras

/// scrypt (RFC 7914) in the PHC-style string passlib and others write: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<key>`,
/// salt and key in unpadded base64 (the salt's decoded bytes are the salt). Stored as that string without its leading
/// `$scrypt$`.
struct ScryptHash: Sendable, Equatable {
    var log2N: Int
    var r: Int
    var p: Int
    var salt: [UInt8]
    var key: [UInt8]

    /// `ln=16,r=8,p=1$salt$key`.
    init(phcBody: Substring) throws(LegacyHashError) {
        let parts = phcBody.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 3, let salt = LegacyEncoding.base64(parts[1]), let key = LegacyEncoding.base64(parts[2]) else {
            throw .malformed("an scrypt hash is $scrypt$ln=…,r=…,p=…$salt$key")
        }
        let fields = try PHCFields.parse(parts[0], names: ["ln", "r", "p"])
        guard let log2N = fields["ln"], let r = fields["r"], let p = fields["p"], fields.count == 3 else {
            throw .malformed("an scrypt hash names ln, r and p")
        }
        guard (1...32).contains(log2N), r >= 1, p >= 1, (8...LegacyHashCosts.outputBytes).contains(key.count),
            salt.count <= LegacyHashCosts.saltBytes
        else { throw .malformed("scrypt parameters out of range (ln 1–32, r and p at least 1, a key of 8–128 bytes)") }
        // 128·N·r bytes of memory; N·r·p mixing work; r at most 16 (the memory BoringSSL is allowed is 128·N·r·p).
        let memory = (128 << log2N) * r
        guard log2N <= 24, r <= 16, p <= 16, memory <= LegacyHashCosts.scryptMemoryBytes,
            (1 << log2N) * r * p <= LegacyHashCosts.scryptWork
        else {
            throw .tooCostly(
                "scrypt with N=2^\(log2N), r=\(r), p=\(p); at most 128 MiB (128·N·r), r and p at most 16, N·r·p at most 2^22")
        }
        self.log2N = log2N
        self.r = r
        self.p = p
        self.salt = salt
        self.key = key
        saltText = String(parts[1])
        keyText = String(parts[2])
    }

    private var saltText: String
    private var keyText: String

    var stored: String { "ln=\(log2N),r=\(r),p=\(p)$\(saltText)$\(keyText)" }

    func matches(_ password: [UInt8]) -> Bool {
        guard
            let derived = try? KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: key.count, rounds: 1 << log2N, blockSize: r, parallelism: p)
        else { return false }
        return ConstantTime.equal(derived.withUnsafeBytes { Array($0) }, key)
    }
}
