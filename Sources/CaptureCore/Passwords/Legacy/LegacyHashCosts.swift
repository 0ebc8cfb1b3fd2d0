/// The most one check of an imported hash may cost, per family (docs/adr/0067-legacy-password-hashes.md). Each cap is above
/// what the format's usual tools make today (passlib's defaults, PHP's, glibc's) and keeps one check within about
/// the time of a bcrypt check at `BcryptCost.range`'s top, so a crafted import line cannot make a sign-in attempt
/// hold a hashing thread for long, nor allocate more than a bounded amount of memory.
enum LegacyHashCosts {
    /// PBKDF2: iterations times output blocks (passlib's default for pbkdf2_sha256 is 29,000; OWASP's 600,000).
    static let pbkdf2Work = 2_000_000
    /// PBKDF2, scrypt and argon2 outputs compared: at most 128 bytes.
    static let outputBytes = 128
    /// Salts of every family: 1 KiB is far beyond any tool's.
    static let saltBytes = 1024
    /// SHA-crypt `rounds=` (glibc default 5,000; passlib 535,000 / 656,000).
    static let shaCryptRounds = 1_000_000
    /// phpass: log2 of the MD5 iterations (WordPress 8, passlib 19).
    static let phpassLog2 = 20
    /// scrypt: 128·N·r bytes of memory at most 128 MiB (passlib's default N=2^16, r=8 is 64 MiB), N·r·p at most 2^22.
    static let scryptMemoryBytes = 128 << 20
    static let scryptWork = 1 << 22
    /// argon2: memory in KiB (passlib 100 MiB, OWASP 19–46 MiB), passes, lanes, and memory times passes.
    static let argon2MemoryKiB = 262_144
    static let argon2Passes = 10
    static let argon2Lanes = 16
    static let argon2Work = 1_048_576
}
