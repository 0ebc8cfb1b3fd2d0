/// The name of a storage index on a profile attribute for filters: `users_profile_` and the FNV-1a hash (64 bits,
/// hex) of the exact expression indexed. The name changes with the expression (another attribute, another type), so
/// startup can tell the indexes it wants from those it made for an older schema; and it stays short, which
/// PostgreSQL's 63-byte names need with paths of up to four names of 64 characters.
public enum FilterIndexName {
    public static let prefix = "users_profile_"

    public static func name(forExpression expression: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in expression.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
