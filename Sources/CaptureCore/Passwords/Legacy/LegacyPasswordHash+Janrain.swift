/// Reading legacy hashes as exports carry them (docs/adr/0067-legacy-password-hashes.md): self-describing strings (PHC,
/// crypt, phpass) alone, and Janrain's `{"type": "password-…", "value": …, "salt": …}` objects.
extension LegacyPasswordHash {
    /// The hash a string names by its own prefix: `$argon2id$`, `$argon2i$`, `$argon2d$`, `$scrypt$`, passlib's
    /// `$pbkdf2$` (SHA-1), `$pbkdf2-sha256$`, `$pbkdf2-sha512$`, crypt's `$1$`, `$5$`, `$6$`, phpass's `$P$`, `$H$`;
    /// nil for any other text (bcrypt is the caller's; a DES crypt or a bare digest says nothing of its format).
    static func fromText(_ text: String) throws(LegacyHashError) -> LegacyPasswordHash? {
        guard text.hasPrefix("$"), text.utf8.count <= 4096 else { return nil }
        let fields = text.dropFirst().split(separator: "$", maxSplits: 1, omittingEmptySubsequences: false)
        guard fields.count == 2 else { return nil }
        let id = String(fields[0]), body = fields[1]
        switch id {
        case "argon2id", "argon2i", "argon2d":
            return .argon2(try Argon2Hash(variant: Argon2Hash.Variant(rawValue: id)!, phcBody: body))
        case "scrypt": return .scrypt(try ScryptHash(phcBody: body))
        case "pbkdf2", "pbkdf2-sha1": return .pbkdf2(try pbkdf2(.sha1, phcBody: body))
        case "pbkdf2-sha256": return .pbkdf2(try pbkdf2(.sha256, phcBody: body))
        case "pbkdf2-sha512": return .pbkdf2(try pbkdf2(.sha512, phcBody: body))
        case "1": return .crypt(try CryptHash(format: .md5, text: text))
        case "5": return .crypt(try CryptHash(format: .sha256, text: text))
        case "6": return .crypt(try CryptHash(format: .sha512, text: text))
        case "P", "H", "S": return .phpass(try PhpassHash(text: text))
        default: return nil
        }
    }

    /// Janrain's password object: `type` is Akamai's import name (`password-md5`, `password-md5-salted-left-base64`,
    /// `password-pbkdf2-sha256`…), `value` the hash, `salt` and `iterations` where the format has them.
    static func fromJanrain(
        type: String, value: String, salt: String?, iterations: Int?
    ) throws(LegacyHashError) -> LegacyPasswordHash {
        guard type.hasPrefix("password-") else { throw .malformed("a password type is password-…") }
        var name = String(type.dropFirst("password-".count))
        let unsalted: [String: SaltedDigestHash.Format] = [
            "md5": .md5, "sha": .sha1, "sha1": .sha1, "sha-1": .sha1, "sha256": .sha256, "sha-256": .sha256,
            "sha512": .sha512, "sha-512": .sha512,
        ]
        func refuse(_ member: String) throws(LegacyHashError) {
            throw .malformed("\(type) takes no \(member)")
        }
        if let format = unsalted[name] {
            if salt != nil { try refuse("salt") }
            if iterations != nil { try refuse("iterations") }
            return .digest(try SaltedDigestHash(format: format, salt: [], digest: try digest(value, of: type)))
        }
        if name.hasPrefix("md5-salted-") || name == "netforum" {
            let base64Salt = name.hasSuffix("-base64")
            if base64Salt { name.removeLast("-base64".count) }
            guard let format = SaltedDigestHash.Format(rawValue: name), format.salted else {
                throw .malformed("'\(type)' is not a password type this service reads")
            }
            if iterations != nil { try refuse("iterations") }
            guard let salt else { throw .malformed("\(type) needs its salt") }
            guard let saltBytes = base64Salt ? LegacyEncoding.base64(salt) : Array(salt.utf8) else {
                throw .malformed("the salt of \(type) is base64")
            }
            return .digest(try SaltedDigestHash(format: format, salt: saltBytes, digest: try digest(value, of: type)))
        }
        if let format = CryptHash.Format(rawValue: name) {
            if salt != nil { try refuse("salt (it is inside the crypt string)") }
            if iterations != nil { try refuse("iterations") }
            return .crypt(try CryptHash(format: format, text: value))
        }
        if let format = PBKDF2Hash.Format(rawValue: name) {
            if value.hasPrefix("$") {
                guard salt == nil, iterations == nil, case .pbkdf2(let hash)? = try fromText(value), hash.format == format
                else {
                    throw .malformed(
                        "the value of \(type) is a \(format.rawValue) PHC string, or a digest with salt and iterations")
                }
                return .pbkdf2(hash)
            }
            guard let salt, let iterations else { throw .malformed("\(type) needs its salt and iterations") }
            return .pbkdf2(
                try PBKDF2Hash(format: format, iterations: iterations, salt: Array(salt.utf8), key: try digest(value, of: type)))
        }
        let phc: [String: (LegacyPasswordHash) -> Bool] = [
            "phpass": { if case .phpass = $0 { true } else { false } },
            "argon2": { if case .argon2 = $0 { true } else { false } },
            "scrypt": { if case .scrypt = $0 { true } else { false } },
        ]
        if let family = phc.first(where: { name.hasPrefix($0.key) }) {
            if salt != nil || iterations != nil { try refuse("salt or iterations (they are inside the hash)") }
            guard let hash = try fromText(value), family.value(hash) else { throw .malformed("not a \(type) hash") }
            return hash
        }
        throw .malformed("'\(type)' is not a password type this service reads")
    }

    private static func digest(_ value: String, of type: String) throws(LegacyHashError) -> [UInt8] {
        guard value.utf8.count <= 1024, let bytes = LegacyEncoding.digest(value) else {
            throw .malformed("the value of \(type) is a hex or base64 digest")
        }
        return bytes
    }

    /// passlib's `<rounds>$<salt>$<key>` (adapted base64), or the PHC form `i=<rounds>[,l=<length>]$<salt>$<key>`.
    private static func pbkdf2(_ format: PBKDF2Hash.Format, phcBody: Substring) throws(LegacyHashError) -> PBKDF2Hash {
        let parts = phcBody.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 3, let salt = LegacyEncoding.base64(parts[1]), let key = LegacyEncoding.base64(parts[2]) else {
            throw .malformed("a \(format.rawValue) hash is $\(format.rawValue)$rounds$salt$key")
        }
        let rounds: Int
        if parts[0].hasPrefix("i=") {
            let fields = try PHCFields.parse(parts[0], names: ["i", "l"])
            guard let named = fields["i"], fields["l"].map({ $0 == key.count }) ?? true else {
                throw .malformed("a \(format.rawValue) hash names i (and l, its key's length)")
            }
            rounds = named
        } else {
            guard parts[0].count <= 10, let named = Int(parts[0]) else { throw .malformed("PBKDF2 rounds are a whole number") }
            rounds = named
        }
        return try PBKDF2Hash(format: format, iterations: rounds, salt: salt, key: key)
    }
}
