import Crypto

/// One pass of a plain digest over the password, with or without a salt: Janrain's `password-md5`, `password-sha`
/// (SHA-1), `password-sha-256`, `password-sha-512`, `password-md5-salted-left`/`-right` (the salt before or after the
/// password) and `password-netforum` (SHA-1 of the salt then the password; docs/adr/0067-legacy-password-hashes.md). Stored as
/// `<salt hex>$<digest hex>`, the salt empty for the unsalted ones.
struct SaltedDigestHash: Sendable, Equatable {
    enum Format: String, CaseIterable, Sendable {
        case md5, sha1, sha256 = "sha-256", sha512 = "sha-512"
        case md5SaltedLeft = "md5-salted-left", md5SaltedRight = "md5-salted-right"
        case netforum
    }

    var format: Format
    var salt: [UInt8]
    var digest: [UInt8]

    init(format: Format, salt: [UInt8], digest: [UInt8]) throws(LegacyHashError) {
        guard digest.count == format.digestLength else {
            throw .malformed("a \(format.rawValue) digest has \(format.digestLength) bytes, not \(digest.count)")
        }
        guard format.salted || salt.isEmpty else { throw .malformed("\(format.rawValue) takes no salt") }
        guard salt.count <= LegacyHashCosts.saltBytes else { throw .malformed("the salt is longer than 1 KiB") }
        self.format = format
        self.salt = salt
        self.digest = digest
    }

    init(format: Format, stored: Substring) throws(LegacyHashError) {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 2, let salt = LegacyEncoding.hex(parts[0]), let digest = LegacyEncoding.hex(parts[1]) else {
            throw .malformed("not a stored \(format.rawValue) hash")
        }
        try self.init(format: format, salt: salt, digest: digest)
    }

    var stored: String { LegacyEncoding.hex(salt) + "$" + LegacyEncoding.hex(digest) }

    func matches(_ password: [UInt8]) -> Bool {
        let input: [UInt8] =
            switch format {
            case .md5SaltedRight: password + salt
            default: salt + password
            }
        return ConstantTime.equal(format.hash(input), digest)
    }
}

extension SaltedDigestHash.Format {
    var salted: Bool { self == .md5SaltedLeft || self == .md5SaltedRight || self == .netforum }

    var digestLength: Int {
        switch self {
        case .md5, .md5SaltedLeft, .md5SaltedRight: 16
        case .sha1, .netforum: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    func hash(_ input: [UInt8]) -> [UInt8] {
        switch self {
        case .md5, .md5SaltedLeft, .md5SaltedRight: Array(Insecure.MD5.hash(data: input))
        case .sha1, .netforum: Array(Insecure.SHA1.hash(data: input))
        case .sha256: Array(SHA256.hash(data: input))
        case .sha512: Array(SHA512.hash(data: input))
        }
    }
}
