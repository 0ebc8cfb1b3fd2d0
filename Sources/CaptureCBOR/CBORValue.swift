/// One decoded CBOR data item (RFC 8949), as much of CBOR as WebAuthn's attestation objects and COSE keys use.
public indirect enum CBORValue: Sendable, Equatable {
    case unsigned(UInt64)
    /// The integer -1 - n.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    /// Entries in the order they were encoded; keys are unique (the decoder refuses a repeated key).
    case map([CBORMapEntry])
    case tagged(UInt64, CBORValue)
    case bool(Bool)
    case null
    case undefined
    case float(Double)

    /// The value as a signed integer, when it is one that fits.
    public var int: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    public var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var entries: [CBORMapEntry]? {
        if case .map(let value) = self { return value }
        return nil
    }

    /// The value under a text key of a map.
    public subscript(key: String) -> CBORValue? {
        entries?.first { $0.key == .text(key) }?.value
    }

    /// The value under an integer key of a map (COSE keys use small integers).
    public subscript(key: Int64) -> CBORValue? {
        entries?.first { $0.key.int == key }?.value
    }
}

public struct CBORMapEntry: Sendable, Equatable {
    public var key: CBORValue
    public var value: CBORValue

    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
