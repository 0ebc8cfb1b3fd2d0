import CaptureJSON
import Foundation

/// A change that adds or takes away a way into an account, or moves it to another mailbox (SPEC §19): what a stolen
/// access token, or a session kept alive by refreshes, must not be able to make.
public enum SensitiveChange: String, Sendable, CaseIterable {
    case addPasskey = "passkey.add"
    case removePasskey = "passkey.remove"
    case setUpAuthenticator = "second_factor.setup"
    case turnOffAuthenticator = "second_factor.disable"
    case linkProvider = "provider.link"
    case unlinkProvider = "provider.unlink"
    case changePassword = "password.change"
    case changeAddress = "email.change"
    case deleteAccount = "account.delete"

    /// What a refusal calls the change, in the developer's English (`error_description`).
    public var described: String {
        switch self {
        case .addPasskey: "adding a passkey"
        case .removePasskey: "removing a passkey"
        case .setUpAuthenticator: "setting up an authenticator app"
        case .turnOffAuthenticator: "turning off the authenticator app"
        case .linkProvider: "linking a sign-in provider"
        case .unlinkProvider: "unlinking a sign-in provider"
        case .changePassword: "changing the password"
        case .changeAddress: "changing the email address"
        case .deleteAccount: "deleting the account"
        }
    }
}

/// The one rule for a sensitive change (SPEC §19): the session behind the access token began with a sign-in (a
/// password, a provider, a passkey, a second factor, a registration) within `window`, or the request itself carries
/// the current password, and, where a second factor is on, one of its codes. A refresh continues a session; it never
/// makes it recent.
public struct StepUpRule: Sendable, Equatable {
    /// `recentSignInMinutes`, in seconds.
    public var window: TimeInterval

    public init(window: TimeInterval) { self.window = window }

    /// What the change needs besides the access token, given how old the session is and what the request brings.
    public enum Need: Sendable, Equatable {
        /// Nothing more: the sign-in is recent (a password sent anyway is still checked).
        case nothing
        /// The current password; and with `code`, a second factor's code too.
        case password(code: Bool)
        /// A sign-in again: the account has no password to stand in for one.
        case signIn
    }

    /// `began`: when the session's sign-in happened (nil when unknown: a session from before sessions said so).
    public func need(sessionBegan began: Date?, at now: Date, hasPassword: Bool, hasSecondFactor: Bool) -> Need {
        if let began, began <= now, now.timeIntervalSince(began) <= window { return .nothing }
        return hasPassword ? .password(code: hasSecondFactor) : .signIn
    }
}

/// When a session began: its chain id is a UUID version 7 minted at the sign-in, whose first 48 bits are that time in
/// Unix milliseconds (RFC 9562 §5.7). Every token a refresh, a code exchange or a signed refresh issues keeps the
/// chain id, so the time cannot be moved forward by anything but a new sign-in.
public enum SessionStart {
    /// A chain id for a sign-in at `date`, its other 74 bits random.
    public static func chainID(at date: Date, random: any RandomSource) -> String {
        var bytes = random.bytes(16)
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        bytes[6] = (bytes[6] & 0x0F) | 0x70
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return TokenMinter.uuidText(bytes)
    }

    /// The sign-in time of a chain minted by `chainID(at:random:)`; nil for any other id (version 4 chain ids of
    /// sessions begun before this rule, which therefore count as not recent).
    public static func of(chainID: String) -> Date? {
        let hex = Array(chainID.utf8.filter { $0 != UInt8(ascii: "-") })
        guard chainID.utf8.count == 36, hex.count == 32, hex[12] == UInt8(ascii: "7") else { return nil }
        var milliseconds: UInt64 = 0
        for digit in hex[0..<12] {
            guard let value = digit.hexDigitValue else { return nil }
            milliseconds = milliseconds << 4 | UInt64(value)
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// What a sensitive change's own request brings to stand in for a recent sign-in (`current_password`,
/// `second_factor_code`), and where it came from (the current password is checked and throttled as a sign-in).
public struct StepUpProof: Sendable, Equatable {
    public var password: String?
    public var code: String?
    public var remoteAddress: String?
    public var locale: String?

    public init(password: String? = nil, code: String? = nil, remoteAddress: String? = nil, locale: String? = nil) {
        self.password = password.flatMap { $0.isEmpty ? nil : $0 }
        self.code = code.flatMap { $0.isEmpty ? nil : $0 }
        self.remoteAddress = remoteAddress
        self.locale = locale
    }

    /// From a call's parameters: `current_password`, `second_factor_code`, `locale`.
    public init(_ parameters: [String: String], remoteAddress: String?) {
        self.init(
            password: parameters["current_password"], code: parameters["second_factor_code"], remoteAddress: remoteAddress,
            locale: parameters["locale"])
    }

    /// The parameters that carry it, for the calls that list theirs.
    public static let parameters: Set<String> = ["current_password", "second_factor_code"]
}
