/// Where random bytes come from; the default is the system CSPRNG.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}

/// `SystemRandomNumberGenerator` reads the kernel CSPRNG (getrandom on Linux).
public struct SystemRandom: RandomSource {
    public init() {}
    /// Eight bytes per draw from the system's generator (one `getrandom` each), not one: a token is 4 draws, not 32.
    public func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
