import CaptureCBOR
import CaptureTestSupport
import Testing

/// RFC 8949 Appendix A's examples that WebAuthn's subset uses, and hostile input: every refusal is an error, never a
/// crash, a hang or an allocation the input's size does not pay for.
@Suite struct CBORDecoderTests {
    static func bytes(_ spaced: String) -> [UInt8] {
        let hex = spaced.filter { $0 != " " }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    let decoder = CBORDecoder()

    @Test(arguments: [
        ("00", CBORValue.unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1bffffffffffffffff", .unsigned(UInt64.max)), ("20", .negative(0)), ("3863", .negative(99)),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6449455446", .text("IETF")),
        ("62c3bc", .text("ü")), ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined), ("f93c00", .float(1.0)),
        ("f97bff", .float(65504.0)), ("fa47c35000", .float(100000.0)), ("fb3ff199999999999a", .float(1.1)),
        ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))),
        ("a201020304", .map([CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), .unsigned(4))])),
    ])
    func decodesTheRFCExamples(_ example: (String, CBORValue)) throws {
        #expect(try decoder.decode(Self.bytes(example.0)) == example.1)
    }

    @Test func readsACOSEKeyByIntegerKeysAndAnAttestationObjectByTextKeys() throws {
        // {1: 2, 3: -7, -1: 1, -2: h'01', -3: h'02'} and {"fmt": "none", "attStmt": {}, "authData": h'00'}
        let key = try decoder.decode(Self.bytes("a5010203262001215801012258010 2"))
        #expect(key[1]?.int == 2 && key[3]?.int == -7 && key[-1]?.int == 1)
        #expect(key[-2]?.bytes == [1] && key[-3]?.bytes == [2])
        let object = try decoder.decode(Self.bytes("a363666d74646e6f6e656761747453746d74a068617574684461746141 00"))
        #expect(object["fmt"]?.text == "none" && object["attStmt"]?.entries?.isEmpty == true && object["authData"]?.bytes == [0])
    }

    @Test func aPrefixSaysHowManyBytesItTook() throws {
        let (value, count) = try decoder.decodePrefix(Self.bytes("8201020304"))
        #expect(value == .array([.unsigned(1), .unsigned(2)]) && count == 3)
        #expect(throws: CBORError.trailingBytes) { try decoder.decode(Self.bytes("8201020304")) }
    }

    @Test(arguments: [
        ("", CBORError.truncated), ("18", .truncated), ("1a0000", .truncated), ("44010203", .truncated),
        ("830102", .truncated), ("a20102a1", .truncated),
        // A length far beyond the input is refused before anything is reserved for it.
        ("5bffffffffffffffff", .truncated), ("9bffffffffffffffff", .truncated), ("bb7fffffffffffffff", .truncated),
        ("7a7fffffff", .truncated),
        ("5f", .unsupported("indefinite length")), ("9f", .unsupported("indefinite length")),
        ("bf", .unsupported("indefinite length")), ("ff", .unsupported("break outside an indefinite-length item")),
        ("1c", .unsupported("reserved additional information 28")), ("f8ff", .unsupported("simple value 24")),
        ("62c328", .invalidText), ("a2010201 03", .duplicateKey),
    ])
    func refusesMalformedInput(_ example: (String, CBORError)) {
        #expect(throws: example.1) { try decoder.decode(Self.bytes(example.0)) }
    }

    @Test func refusesInputBeyondItsLimits() {
        let deep = [UInt8](repeating: 0x81, count: 200) + [0x00]
        #expect(throws: CBORError.tooLarge("nesting over 16")) { try decoder.decode(deep) }
        // 600 one-byte items in one array: over the item budget.
        let many = [0x99, 0x02, 0x58] + [UInt8](repeating: 0x00, count: 600)
        #expect(throws: CBORError.tooLarge("over 512 items")) { try decoder.decode(many) }
        let big = [0x59, 0x4e, 0x20] + [UInt8](repeating: 0, count: 20_000)
        #expect(throws: CBORError.tooLarge("input over 16384 bytes")) { try decoder.decode(big) }
    }

    /// Random bytes and every truncation of a valid object: each either decodes or throws.
    @Test func survivesRandomAndTruncatedInput() {
        var generator = SeededGenerator()
        for _ in 0..<3000 {
            let input = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? decoder.decode(input)
        }
        let valid = Self.bytes("a363666d74646e6f6e656761747453746d74a06861757468446174614400010203")
        #expect((try? decoder.decode(valid)) != nil)
        for end in 0..<valid.count { #expect(throws: CBORError.self) { try decoder.decode(Array(valid[..<end])) } }
    }
}
