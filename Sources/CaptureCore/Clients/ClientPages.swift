import Foundation

/// A client's own pages, from its settings (Janrain's client settings `site_name`, `verify_email_url`,
/// `password_recover_url`): the name its mail goes by, and the pages a mailed code's link opens. A client without
/// them has its links open the service's own flow page.
public struct ClientPages: Sendable, Equatable {
    public var siteName: String?
    public var verifyEmailURL: String?
    public var passwordRecoverURL: String?

    public init(siteName: String? = nil, verifyEmailURL: String? = nil, passwordRecoverURL: String? = nil) {
        self.siteName = siteName
        self.verifyEmailURL = verifyEmailURL
        self.passwordRecoverURL = passwordRecoverURL
    }

    public init(_ settings: ClientSettings?) {
        self.init(
            siteName: settings?.siteName, verifyEmailURL: settings?.verifyEmailUrl,
            passwordRecoverURL: settings?.passwordRecoverUrl)
    }

    /// The settings under Janrain's names, as `janrain.capture.ui.getClientSettings()` hands them to a page.
    public var janrainClientSettings: [String: String] {
        [("site_name", siteName), ("verify_email_url", verifyEmailURL), ("password_recover_url", passwordRecoverURL)]
            .reduce(into: [:]) { settings, pair in if let value = pair.1 { settings[pair.0] = value } }
    }

    /// A name shown to people (a page title, a site name): 1-120 characters, none of them control characters.
    public static func isDisplayName(_ text: String) -> Bool {
        !text.trimmingCharacters(in: .whitespaces).isEmpty && text.count <= 120
            && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Why `url` cannot be one of `client`'s pages, or nil: an absolute http(s) address without a fragment, on an
    /// origin the client already names (its allowed origins or its redirect URIs'). A link that carries a code
    /// never leads anywhere the client's registration does not.
    public static func problem(withPage url: String, of client: ClientSettings) -> String? {
        problem(withPage: url, allowedOrigins: client.allowedOrigins ?? [], redirectURIs: client.redirectUris ?? [])
    }

    /// `problem(withPage:of:)` for a client registered at run time.
    public static func problem(withPage url: String, of client: Client) -> String? {
        problem(withPage: url, allowedOrigins: client.allowedOrigins, redirectURIs: client.redirectURIs)
    }

    static func problem(withPage url: String, allowedOrigins: [String], redirectURIs: [String]) -> String? {
        guard ExactURI(url) != nil, let origin = URLOrigin(url) else {
            return "'\(url)' must be an absolute http(s) URL without a fragment"
        }
        let named = allowedOrigins + redirectURIs.filter { !$0.hasPrefix("/") }
        guard named.contains(where: { URLOrigin($0) == origin }) else {
            return "'\(url)' is not on one of the client's origins (allowedOrigins, redirectUris)"
        }
        return nil
    }

    /// Where a mailed code for `screen` (the service's `verifyEmail` or `resetPassword`) opens on the client's own
    /// page, or nil when the client has no page for it. Janrain's pages render `verifyEmail` and
    /// `resetPasswordRequestCode` for these links; `screenToRender` joins the query (pages read it there) unless the
    /// address names one already, and the rest goes in the fragment as on the service's own page.
    public func link(screen: String, code: String, email: String) -> String? {
        let janrainScreen = screen == "resetPassword" ? "resetPasswordRequestCode" : screen
        guard let page = screen == "resetPassword" ? passwordRecoverURL : verifyEmailURL,
            var components = URLComponents(string: page)
        else { return nil }
        let items = components.queryItems ?? []
        if !items.contains(where: { $0.name == "screenToRender" }) {
            components.queryItems = items + [URLQueryItem(name: "screenToRender", value: janrainScreen)]
        }
        return (components.string ?? page) + "#" + Self.fragment(screen: janrainScreen, code: code, email: email)
    }

    /// What a link tells the page it opens: `screen=…&code=…&email=…`. The code travels only in a fragment, which
    /// browsers send to no server, and the page removes it from the address bar once read.
    public static func fragment(screen: String, code: String, email: String) -> String {
        var fragment = URLComponents()
        fragment.queryItems = [
            URLQueryItem(name: "screen", value: screen), URLQueryItem(name: "code", value: code),
            URLQueryItem(name: "email", value: email),
        ]
        return (fragment.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }
}
