import CArgon2

/// argon2 (RFC 9106) in its PHC string, as libargon2, passlib and PHP write it:
/// `$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<tag>`, salt and tag in unpadded base64; argon2i and argon2d
/// are read too. Checked with the reference implementation (libargon2) on the calling thread, one lane after another,
/// so a check never leaves its HashingPool thread. Stored as the PHC string without its leading `$`.
struct Argon2Hash: Sendable, Equatable {
    enum Variant: String, CaseIterable, Sendable {
        case argon2d, argon2i, argon2id

        var type: Int32 {
            switch self {
            case .argon2d: 0
            case .argon2i: 1
            case .argon2id: 2
            }
        }
    }

    var variant: Variant
    var version: Int
    var memoryKiB: Int
    var passes: Int
    var lanes: Int
    var salt: [UInt8]
    var tag: [UInt8]
    private var body: String

    /// `v=19$m=65536,t=3,p=4$salt$tag` (the version may be missing: 0x10, the first).
    init(variant: Variant, phcBody: Substring) throws(LegacyHashError) {
        var parts = phcBody.split(separator: "$", omittingEmptySubsequences: false)
        var version = 0x10
        if parts.count == 4, parts[0].hasPrefix("v=") {
            guard let named = Int(parts[0].dropFirst(2)), named == 0x10 || named == 0x13 else {
                throw .malformed("argon2 versions 16 and 19 are known")
            }
            version = named
            parts.removeFirst()
        }
        guard parts.count == 3, let salt = LegacyEncoding.base64(parts[1]), let tag = LegacyEncoding.base64(parts[2]) else {
            throw .malformed("an argon2 hash is $\(variant.rawValue)$v=19$m=…,t=…,p=…$salt$tag")
        }
        let fields = try PHCFields.parse(parts[0], names: ["m", "t", "p"])
        guard let memory = fields["m"], let passes = fields["t"], let lanes = fields["p"], fields.count == 3 else {
            throw .malformed("an argon2 hash names m, t and p")
        }
        guard lanes >= 1, passes >= 1, memory >= 8 * lanes, salt.count >= 8, salt.count <= LegacyHashCosts.saltBytes,
            (4...LegacyHashCosts.outputBytes).contains(tag.count)
        else { throw .malformed("argon2 parameters out of range (t and p at least 1, m at least 8·p, salt of 8 bytes or more)") }
        guard memory <= LegacyHashCosts.argon2MemoryKiB, passes <= LegacyHashCosts.argon2Passes,
            lanes <= LegacyHashCosts.argon2Lanes, memory * passes <= LegacyHashCosts.argon2Work
        else {
            throw .tooCostly(
                "argon2 with m=\(memory) KiB, t=\(passes), p=\(lanes); at most 256 MiB, 10 passes, 16 lanes, 1 GiB·pass")
        }
        self.variant = variant
        self.version = version
        self.memoryKiB = memory
        self.passes = passes
        self.lanes = lanes
        self.salt = salt
        self.tag = tag
        body = String(phcBody)
    }

    var stored: String { body }

    func matches(_ password: [UInt8]) -> Bool {
        var out = [UInt8](repeating: 0, count: tag.count)
        let status = password.withUnsafeBufferPointer { typed in
            salt.withUnsafeBufferPointer { salt in
                out.withUnsafeMutableBufferPointer { out in
                    cargon2_raw(
                        variant.type, UInt32(version), UInt32(passes), UInt32(memoryKiB), UInt32(lanes),
                        typed.baseAddress, UInt32(typed.count), salt.baseAddress, UInt32(salt.count), out.baseAddress,
                        UInt32(out.count))
                }
            }
        }
        return status == 0 && ConstantTime.equal(out, tag)
    }
}
