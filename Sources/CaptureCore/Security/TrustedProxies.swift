import Foundation

/// The proxies whose forwarding headers the service believes (Settings `trustedProxies`: addresses or CIDR
/// ranges) and the one header they write (`proxyHeader`). From anyone else, and the other header from anyone,
/// nothing is believed, so a client cannot pick the address its sign-in attempts are counted against.
public struct TrustedProxies: Sendable, Equatable {
    /// The forwarding header the operator's proxies write; the other one is a client's and is ignored (issue 27:
    /// with both believed, a client's own `Forwarded` won over the proxy's `X-Forwarded-For`).
    public enum Header: String, Sendable, Equatable, CaseIterable {
        /// `X-Forwarded-For` (with `X-Forwarded-Proto`): what nginx, HAProxy and most balancers write.
        case xForwardedFor = "X-Forwarded-For"
        /// RFC 7239 `Forwarded` (`for=`, `proto=`).
        case forwarded = "Forwarded"
    }

    /// One address range: the network's bytes and how many leading bits must match.
    struct Range: Sendable, Equatable {
        var network: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == network.count else { return false }
            var remaining = prefixLength
            for (index, byte) in address.enumerated() where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if byte & mask != network[index] & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let ranges: [Range]
    public let header: Header

    public static let none = TrustedProxies(ranges: [])

    init(ranges: [Range], header: Header = .xForwardedFor) {
        self.ranges = ranges
        self.header = header
    }

    /// Parses `127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`; nil for anything else.
    public init?(_ entries: [String], header: Header = .xForwardedFor) {
        self.header = header
        var ranges: [Range] = []
        for entry in entries {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = IPAddress.bytes(String(parts[0])) else { return nil }
            let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let length, (0...(bytes.count * 8)).contains(length) else { return nil }
            ranges.append(Range(network: bytes, prefixLength: length))
        }
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func trusts(_ address: String) -> Bool {
        guard let bytes = IPAddress.bytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// Who a request came from, as far as trusted proxies vouch for it.
    public struct Origin: Sendable, Equatable {
        /// The client's address: the nearest hop no trusted proxy stands for.
        public var address: String?
        /// `https` or `http` when a trusted proxy said which scheme the client used.
        public var forwardedScheme: String?

        public init(address: String?, forwardedScheme: String?) {
            self.address = address
            self.forwardedScheme = forwardedScheme
        }
    }

    /// Walks the forwarding chain of `header` from the socket peer backwards while each hop is a trusted proxy
    /// (RFC 7239 §7.4: only the hops the service's own proxies added can be believed): the client is the rightmost
    /// address not in `trustedProxies`. The other header is never read.
    public func origin(peer: String?, forwarded: String?, xForwardedFor: String?, xForwardedProto: String?) -> Origin {
        guard let peer, trusts(peer) else { return Origin(address: peer, forwardedScheme: nil) }
        // X-Forwarded-Proto is set by the nearest proxy (the right-most value when several appended one).
        let proto = xForwardedProto?.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let hops: [(address: String, scheme: String?)]
        if header == .forwarded, let forwarded, !forwarded.isEmpty {
            hops = ForwardedHeader.elements(forwarded).map { ($0.for ?? "", $0.proto) }
        } else if header == .xForwardedFor, let xForwardedFor, !xForwardedFor.isEmpty {
            let addresses = xForwardedFor.split(separator: ",").map { ForwardedHeader.address(String($0)) ?? "" }
            hops = addresses.enumerated().map { index, address in (address, index == addresses.count - 1 ? proto : nil) }
        } else {
            hops = [(peer, header == .xForwardedFor ? proto : nil)]
        }
        var client = Origin(address: peer, forwardedScheme: nil)
        for hop in hops.reversed() {
            client.address = hop.address.isEmpty ? nil : hop.address
            if let scheme = hop.scheme, scheme == "https" || scheme == "http" { client.forwardedScheme = scheme }
            // A malformed or unknown hop ends the walk: nothing further left can be vouched for.
            guard let address = client.address, trusts(address) else { break }
        }
        return client
    }
}

/// RFC 7239 `Forwarded` parsing, only as far as `for` and `proto` go.
enum ForwardedHeader {
    struct Element {
        var `for`: String?
        var proto: String?
    }

    static func elements(_ header: String) -> [Element] {
        header.split(separator: ",").map { element in
            var result = Element()
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
                let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                switch name {
                case "for": result.for = address(value)
                case "proto": result.proto = value.lowercased()
                default: break
                }
            }
            return result
        }
    }

    /// The address of a node name: `192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]:4711`, `2001:db8::1`;
    /// nil for obfuscated names (`_hidden`, `unknown`) and anything that is not an IP address.
    static func address(_ raw: String) -> String? {
        var value = raw.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
            value = String(value[value.index(after: value.startIndex)..<end])
        } else if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
            value = String(value[..<colon])
        }
        return IPAddress.bytes(value) != nil ? value : nil
    }
}

/// Textual IPv4 / IPv6 addresses as bytes (inet_pton), so ranges compare numerically.
enum IPAddress {
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            // An IPv4-mapped IPv6 address (::ffff:a.b.c.d, how dual-stack sockets report IPv4 peers) is that IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
            return bytes
        }
        return nil
    }
}
