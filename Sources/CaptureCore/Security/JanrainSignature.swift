import Crypto
import Foundation

/// Janrain's HMAC-SHA1 signatures: a server API call signed with a client's secret (`janrain-signed`), and the
/// SDKs' signed refresh. The date is UTC `yyyy-MM-dd HH:mm:ss`; a request signed too far from the service's clock
/// is refused (`window`), which is what makes a captured request useless later.
public enum JanrainSignature {
    /// The text a server API call signs: its path, the date, and one `name=value` line per parameter, sorted (the
    /// parameters without `client_id` and `client_secret`).
    public static func signedText(path: String, date: String, parameters: [String: String]) -> String {
        var text = path + "\n" + date + "\n"
        for line in parameters.map({ "\($0.key)=\($0.value)" }).sorted() { text += line + "\n" }
        return text
    }

    /// Base64 of HMAC-SHA1 of `text` under `secret`.
    public static func signature(of text: String, secret: String) -> String {
        Data(HMAC<Insecure.SHA1>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: Data(secret.utf8))))
            .base64EncodedString()
    }

    /// Whether `presented` signs `text` under `secret`, compared in constant time. A form body turns an unescaped
    /// `+` of Base64 into a space, which is undone first.
    public static func verifies(_ presented: String, text: String, secret: String) -> Bool {
        ConstantTime.equals(presented.replacingOccurrences(of: " ", with: "+"), signature(of: text, secret: secret))
    }

    /// The date of a signature, or nil when it is not UTC `yyyy-MM-dd HH:mm:ss`.
    public static func date(_ text: String) -> Date? {
        // The length first (O(1)): this runs before anything is looked up, on whatever the caller sent.
        guard text.utf8.count == 19 else { return nil }
        let parts = text.split(whereSeparator: { "- :".contains($0) }).map { Int($0) }
        guard parts.count == 6, parts.allSatisfy({ $0 != nil }) else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        (components.hour, components.minute, components.second) = (parts[3], parts[4], parts[5])
        guard components.isValidDate, let date = components.date else { return nil }
        return date
    }

    /// `date` as a signature writes it.
    public static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}
