import CaptureJSON

/// The `password` of an exported record, kept as it is so the user signs in with their old password. Janrain exports
/// it as the hash text, or as `{"type": "password-…", "value": …}` with `salt` (and `iterations`) where the format has
/// them. bcrypt is stored as it is; every other format Janrain names, and PHC strings, is stored tagged
/// (`LegacyPasswordHash`) and becomes bcrypt at its owner's first sign-in. Plain text and unknown formats are refused,
/// and so is a hash whose cost could let one sign-in attempt occupy the service (`LegacyHashCosts`).
enum ImportedPasswordHash {
    /// The hash to store, or nil when the record has no password (the user then resets it).
    static func hash(from value: JSONValue?) throws(SchemaViolation) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            if text.hasPrefix("$2") { return try checked(text) }
            // This service's own tagged form, as its server API shows an owner an imported hash not yet migrated
            // (one instance pulled from another): read back, bounds and all, and kept as it is.
            if let stored = try reading({ () throws(LegacyHashError) in try LegacyPasswordHash(stored: text) }) {
                return stored.stored
            }
            guard let legacy = try reading({ () throws(LegacyHashError) in try LegacyPasswordHash.fromText(text) }) else {
                throw SchemaViolation(
                    .invalidDataFormat, "password",
                    "password is not a hash this service reads (bcrypt, a crypt or PHC string, or {\"type\": \"password-…\", \"value\": …}); plain passwords are never stored"
                )
            }
            return legacy.stored
        case .object(let members)?:
            guard members.keys.allSatisfy(["type", "value", "salt", "iterations"].contains),
                case .string(let type)? = members["type"], case .string(let text)? = members["value"]
            else {
                throw SchemaViolation(
                    .invalidDataFormat, "password",
                    "password must be a hash, or {\"type\": \"password-…\", \"value\": hash} with its salt and iterations")
            }
            if type == "password-bcrypt" {
                guard members.count == 2 else {
                    throw SchemaViolation(.invalidDataFormat, "password", "password-bcrypt takes only type and value")
                }
                return try checked(text)
            }
            let salt: String?
            switch members["salt"] {
            case nil, .null?: salt = nil
            case .string(let text)?: salt = text
            default: throw SchemaViolation(.invalidJSONType, "password", "a password's salt is a string")
            }
            let iterations: Int?
            switch members["iterations"] {
            case nil, .null?: iterations = nil
            case .int(let number)? where number >= 0 && number <= Int64(Int32.max): iterations = Int(number)
            case .string(let digits)? where digits.count <= 10 && Int(digits) != nil: iterations = Int(digits)
            default: throw SchemaViolation(.invalidJSONType, "password", "a password's iterations are a whole number")
            }
            return try reading { () throws(LegacyHashError) in
                try LegacyPasswordHash.fromJanrain(type: type, value: text, salt: salt, iterations: iterations)
            }.stored
        default:
            throw SchemaViolation(.invalidJSONType, "password", "password must be a hash (a string) or a password object")
        }
    }

    /// A legacy reading's refusal as the import's: a malformed hash is a data format error, a costly one a constraint.
    private static func reading<T>(_ read: () throws(LegacyHashError) -> T) throws(SchemaViolation) -> T {
        do { return try read() } catch {
            switch error {
            case .malformed(let why): throw SchemaViolation(.invalidDataFormat, "password", "password: \(why)")
            case .tooCostly(let why):
                throw SchemaViolation(
                    .constraint, "password", "password: \(why) (higher costs would let one sign-in attempt occupy the service)")
            }
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
