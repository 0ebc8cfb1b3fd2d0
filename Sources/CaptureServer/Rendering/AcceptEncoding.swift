import Foundation

/// What a request's `Accept-Encoding` allows (RFC 9110 §12.5.3): whether a gzip-coded body may be sent.
enum AcceptEncoding {
    /// True when the header names `gzip` (or its old alias `x-gzip`) with a quality above 0, or `*` above 0 without
    /// refusing gzip by name. No header, an empty one, or `gzip;q=0` keep the body as it is.
    static func allowsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var named: Bool?
        var wildcard: Bool?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let first = parts.first else { continue }
            let coding = first.trimmingCharacters(in: .whitespaces).lowercased()
            let accepted = quality(parts.dropFirst()) > 0
            switch coding {
            case "gzip", "x-gzip": named = (named ?? false) || accepted
            case "*": wildcard = (wildcard ?? false) || accepted
            default: continue
            }
        }
        return named ?? wildcard ?? false
    }

    /// The `q` parameter's value (1 when absent; 0 when it is not a valid qvalue, so a broken header sends nothing
    /// compressed).
    private static func quality(_ parameters: ArraySlice<Substring>) -> Double {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "q" else { continue }
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            guard value.count <= 5, let number = Double(value), number >= 0, number <= 1 else { return 0 }
            return number
        }
        return 1
    }
}
