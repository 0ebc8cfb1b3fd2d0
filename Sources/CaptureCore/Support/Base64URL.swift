import Foundation

extension Data {
    /// RFC 4648 §5 base64url without padding.
    public func base64URLEncoded() -> String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public var hexString: String {
        map { String(format: "%02x", $0) }.joined()
    }
}
