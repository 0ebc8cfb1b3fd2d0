/// What a request's `Accept-Encoding` allows (RFC 9110 §12.5.3): whether a gzip-coded body may be sent.
///
/// Read over the header's bytes, without copies: every page and asset request asks (docs/benchmarks.md, "Flow page").
enum AcceptEncoding {
    /// True when the header names `gzip` (or its old alias `x-gzip`) with a quality above 0, or `*` above 0 without
    /// refusing gzip by name. No header, an empty one, or `gzip;q=0` keep the body as it is.
    static func allowsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var named: Bool?
        var wildcard: Bool?
        var items = Substring(header).utf8
        while !items.isEmpty {
            var parameters = next(&items, separator: UInt8(ascii: ","))
            let coding = next(&parameters, separator: UInt8(ascii: ";")).trimmingOptionalWhitespace
            guard !coding.isEmpty else { continue }
            let accepted = quality(parameters) > 0
            if equalsIgnoringCase(coding, "gzip") || equalsIgnoringCase(coding, "x-gzip") {
                named = (named ?? false) || accepted
            } else if coding.elementsEqual("*".utf8) {
                wildcard = (wildcard ?? false) || accepted
            }
        }
        return named ?? wildcard ?? false
    }

    /// The bytes before the first `separator` (all of them when there is none); `rest` goes on after it.
    private static func next(_ rest: inout Substring.UTF8View, separator: UInt8) -> Substring.UTF8View {
        guard let end = rest.firstIndex(of: separator) else {
            defer { rest = rest[rest.endIndex...] }
            return rest
        }
        defer { rest = rest[rest.index(after: end)...] }
        return rest[..<end]
    }

    /// The `q` parameter's value in thousandths (1000 when absent; 0 when it is not a valid qvalue — `0`, `0.d{1,3}`,
    /// `1`, `1.0{1,3}` — so a broken header sends nothing compressed).
    private static func quality(_ parameters: Substring.UTF8View) -> Int {
        var parameters = parameters
        while !parameters.isEmpty {
            var parameter = next(&parameters, separator: UInt8(ascii: ";"))
            guard parameter.contains(UInt8(ascii: "=")) else { continue }
            let name = next(&parameter, separator: UInt8(ascii: "="))
            guard equalsIgnoringCase(name.trimmingOptionalWhitespace, "q") else { continue }
            return thousandths(parameter.trimmingOptionalWhitespace) ?? 0
        }
        return 1000
    }

    private static func thousandths(_ value: Substring.UTF8View) -> Int? {
        var bytes = value.makeIterator()
        guard let first = bytes.next(), first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var result = Int(first - UInt8(ascii: "0")) * 1000
        guard let dot = bytes.next() else { return result }
        guard dot == UInt8(ascii: ".") else { return nil }
        var scale = 100
        while let digit = bytes.next() {
            guard scale > 0, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            result += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return result <= 1000 ? result : nil
    }

    /// ASCII case-insensitive equality with a lowercase `name`.
    private static func equalsIgnoringCase(_ bytes: Substring.UTF8View, _ name: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return bytes.elementsEqual(expected) { byte, lower in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
        }
    }
}
