/// Where random bytes come from; the default is the system CSPRNG.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}

/// `SystemRandomNumberGenerator` reads the kernel CSPRNG (getrandom on Linux).
public struct SystemRandom: RandomSource {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
