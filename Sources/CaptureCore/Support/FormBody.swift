import Foundation

/// An `application/x-www-form-urlencoded` body or query, as every outbound form call sends one (providers' token
/// endpoints, the old Janrain app, `migrate janrain`'s source) and every redirect carries one (a provider's
/// authorization request, an OpenID Connect client's reply): each name and value percent-encoded but for letters,
/// digits and `-._~`, pairs joined by `&` in the order given.
public enum FormBody {
    public static func encoded(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
