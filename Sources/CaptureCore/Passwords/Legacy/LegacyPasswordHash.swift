/// A password hash made by another system (an imported Janrain record), kept in the password column until its owner's
/// first sign-in replaces it with bcrypt. Stored as `$legacy$<format>$<parameters>`: no bcrypt hash (`$2…`), crypt
/// string or PHC string begins that way, so a stored hash always says its format (docs/adr/0067-legacy-password-hashes.md).
enum LegacyPasswordHash: Sendable, Equatable {
    case digest(SaltedDigestHash)
    case pbkdf2(PBKDF2Hash)
    case crypt(CryptHash)
    case phpass(PhpassHash)
    case argon2(Argon2Hash)
    case scrypt(ScryptHash)

    static let prefix = "$legacy$"

    /// Every format name a stored hash may carry, as reports show it.
    static let formats: [String] =
        SaltedDigestHash.Format.allCases.map(\.rawValue) + PBKDF2Hash.Format.allCases.map(\.rawValue)
        + CryptHash.Format.allCases.map(\.rawValue) + ["phpass"] + Argon2Hash.Variant.allCases.map(\.rawValue) + ["scrypt"]

    /// The format name: `md5`, `md5-salted-left`, `pbkdf2-sha256`, `crypt-sha512`, `phpass`, `argon2id`, `scrypt`…
    var format: String {
        switch self {
        case .digest(let hash): hash.format.rawValue
        case .pbkdf2(let hash): hash.format.rawValue
        case .crypt(let hash): hash.format.rawValue
        case .phpass: "phpass"
        case .argon2(let hash): hash.variant.rawValue
        case .scrypt: "scrypt"
        }
    }

    /// Weak formats: one fast unsalted or barely salted digest (or DES crypt), as cheap to guess as the old app's.
    var isWeak: Bool {
        switch self {
        case .digest: true
        case .crypt(let hash): hash.format == .des
        default: false
        }
    }

    /// The password column's text.
    var stored: String {
        let body =
            switch self {
            case .digest(let hash): hash.stored
            case .pbkdf2(let hash): hash.stored
            case .crypt(let hash): hash.stored
            case .phpass(let hash): hash.stored
            case .argon2(let hash): hash.stored
            case .scrypt(let hash): hash.stored
            }
        return Self.prefix + format + "$" + body
    }

    /// Reads the password column's text; nil when it is not a legacy hash. A stored one out of shape or over the cost
    /// bounds (written before they applied, or by hand) throws: it is never checked.
    init?(stored text: String) throws(LegacyHashError) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let rest = text.dropFirst(Self.prefix.count)
        guard let dollar = rest.firstIndex(of: "$") else { throw .malformed("a stored legacy hash names its format") }
        let name = String(rest[..<dollar]), body = rest[rest.index(after: dollar)...]
        if let format = SaltedDigestHash.Format(rawValue: name) {
            self = .digest(try SaltedDigestHash(format: format, stored: body))
        } else if let format = PBKDF2Hash.Format(rawValue: name) {
            self = .pbkdf2(try PBKDF2Hash(format: format, stored: body))
        } else if let format = CryptHash.Format(rawValue: name) {
            self = .crypt(try CryptHash(format: format, text: String(body)))
        } else if name == "phpass" {
            self = .phpass(try PhpassHash(text: String(body)))
        } else if let variant = Argon2Hash.Variant(rawValue: name) {
            self = .argon2(try Argon2Hash(variant: variant, phcBody: body))
        } else if name == "scrypt" {
            self = .scrypt(try ScryptHash(phcBody: body))
        } else {
            throw .malformed("'\(name)' is not a legacy hash format")
        }
    }

    /// Whether `password` (its UTF-8 bytes) is the one this hash was made from; the digests compared in constant time.
    /// Runs the format's whole work on the calling thread: call it on the HashingPool (`StoredPasswordHash`).
    func matches(_ password: [UInt8]) -> Bool {
        switch self {
        case .digest(let hash): hash.matches(password)
        case .pbkdf2(let hash): hash.matches(password)
        case .crypt(let hash): hash.matches(password)
        case .phpass(let hash): hash.matches(password)
        case .argon2(let hash): hash.matches(password)
        case .scrypt(let hash): hash.matches(password)
        }
    }
}
