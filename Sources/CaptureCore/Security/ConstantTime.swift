/// Comparison whose duration does not depend on where two secrets differ.
public enum ConstantTime {
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equal(Array(lhs.utf8), Array(rhs.utf8))
    }

    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
