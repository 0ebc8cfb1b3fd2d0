import Foundation

/// Random inputs a failure can be replayed from: a generator (SplitMix64) whose seed it prints as it starts, taken from
/// `CAPTURE_TEST_SEED` when that is set (run the failed test again with it and `--filter`), else drawn at random.
public struct SeededGenerator: RandomNumberGenerator {
    public let seed: UInt64
    private var state: UInt64

    public init(_ test: String = #function) {
        seed =
            ProcessInfo.processInfo.environment["CAPTURE_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: .min ... .max)
        state = seed
        print("\(test): random inputs from seed \(seed) (CAPTURE_TEST_SEED=\(seed) replays them)")
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
