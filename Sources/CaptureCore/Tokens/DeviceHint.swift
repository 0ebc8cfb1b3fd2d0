/// What a person is shown about the device a session began on: a platform and, for a browser, its name, read from
/// the sign-in's `User-Agent` ("iPhone", "Android · Chrome", "Windows · Firefox"). Only names from the lists here
/// are kept, never the header itself: it can say more about a person than their sessions list needs, and it is
/// whatever the caller chose to send.
public enum DeviceHint {
    /// The longest header read: a longer one is judged by its start.
    static let maxHeaderLength = 512

    /// (marker in the header, name shown), the first match wins: iPad and iPhone before Mac (their headers say
    /// "like Mac OS X"), Android and ChromeOS before Linux.
    static let platforms: [(String, String)] = [
        ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"), ("Windows", "Windows"),
        ("Macintosh", "Mac"), ("CFNetwork", "iOS"), ("Linux", "Linux"),
    ]

    /// Browsers by the product token they add; the first match wins (Edge and Opera also say Chrome, Chrome also says
    /// Safari). Safari is named only with the `Version/` token real Safari sends; an app's web view sends neither, and
    /// Android's says `; wv)`.
    static let browsers: [(String, String)] = [
        ("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("CriOS/", "Chrome"),
        ("Chrome/", "Chrome"),
    ]

    /// The hint for `userAgent`, nil when it names no platform this knows.
    public static func describe(userAgent: String?) -> String? {
        guard let userAgent, !userAgent.isEmpty else { return nil }
        let header = String(userAgent.prefix(maxHeaderLength))
        guard let platform = platforms.first(where: { header.contains($0.0) })?.1 else { return nil }
        guard let browser = browser(in: header) else { return platform }
        return "\(platform) · \(browser)"
    }

    private static func browser(in header: String) -> String? {
        if header.contains("; wv)") { return nil }
        if let named = browsers.first(where: { header.contains($0.0) }) { return named.1 }
        if header.contains("Safari/") && header.contains("Version/") { return "Safari" }
        return nil
    }
}
