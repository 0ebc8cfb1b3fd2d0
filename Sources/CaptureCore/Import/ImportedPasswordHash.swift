import CaptureJSON

/// The `password` of an exported record: only a bcrypt hash is taken, kept as it is, so the user signs in with
/// their old password. Janrain exports it as the hash text, or as `{"type": "password-bcrypt", "value": "$2a$…"}`
/// (the schema type of Janrain's password attribute); both are read. Anything else (plain text, MD5, SHA-256
/// crypt) is refused: the service never stores a password it cannot check with bcrypt, nor one in clear.
enum ImportedPasswordHash {
    /// The hash to store, or nil when the record has no password (the user then resets it).
    static func hash(from value: JSONValue?) throws(SchemaViolation) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return try checked(text)
        case .object(let members)?:
            guard members.keys.allSatisfy({ $0 == "type" || $0 == "value" }),
                members["type"] == .string("password-bcrypt"), case .string(let text)? = members["value"]
            else {
                throw SchemaViolation(
                    .invalidDataFormat, "password",
                    "password must be a bcrypt hash, or {\"type\": \"password-bcrypt\", \"value\": hash}")
            }
            return try checked(text)
        default:
            throw SchemaViolation(.invalidJSONType, "password", "password must be a bcrypt hash (a string)")
        }
    }

    /// `$2a$`, `$2b$` or `$2y$`, a two-digit cost 04–16 (BcryptCost), `$`, 22 characters of salt and 31 of hash in bcrypt's
    /// base64 alphabet. `$2y$` (PHP's name for the same algorithm) is stored as `$2b$`, which our bcrypt checks.
    static func checked(_ text: String) throws(SchemaViolation) -> String {
        let bytes = Array(text.utf8)
        let alphabet = { (byte: UInt8) in
            byte == 46 || byte == 47 || (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
        }
        guard bytes.count == 60, bytes[0] == 36, bytes[1] == 50, [97, 98, 121].contains(bytes[2]), bytes[3] == 36,
            bytes[4] >= 48 && bytes[4] <= 57, bytes[5] >= 48 && bytes[5] <= 57, bytes[6] == 36,
            bytes[7...].allSatisfy(alphabet)
        else {
            throw SchemaViolation(
                .invalidDataFormat, "password",
                "password is not a bcrypt hash ($2a$, $2b$ or $2y$); plain or other hashes are never stored")
        }
        let cost = Int(bytes[4] - 48) * 10 + Int(bytes[5] - 48)
        // Above the setting's maximum, one sign-in attempt would keep a hashing thread busy for hours or days.
        guard (4...BcryptCost.range.upperBound).contains(cost) else {
            throw SchemaViolation(
                .constraint, "password",
                "password is a bcrypt hash of cost \(cost); 4 to \(BcryptCost.range.upperBound) are taken (higher costs would let one sign-in attempt occupy the service)"
            )
        }
        return bytes[2] == 121 ? "$2b" + text.dropFirst(3) : text
    }
}
