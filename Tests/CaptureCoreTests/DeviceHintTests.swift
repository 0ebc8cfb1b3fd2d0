import CaptureCore
import Foundation
import Testing

/// What a sessions list says about a device: names from fixed lists, read from real browsers' and apps' headers;
/// nothing a caller writes in the header reaches the list.
@Suite struct DeviceHintTests {
    @Test(arguments: [
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
            "iPhone · Safari"
        ),
        // WKWebView in an app: no Safari product token.
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
            "iPhone"
        ),
        (
            "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1",
            "iPad · Chrome"
        ),
        // Android's WebView says Chrome too, and `; wv)`.
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.0.0 Mobile Safari/537.36",
            "Android"
        ),
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
            "Android · Chrome"
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51",
            "Windows · Edge"
        ),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0", "Mac · Firefox"),
        (
            "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
            "ChromeOS · Chrome"
        ),
        ("Dalvik/2.1.0 (Linux; U; Android 13; SM-G991B Build/TP1A.220624.014)", "Android"),
        ("ExampleApp/3.2 CFNetwork/1494.0.7 Darwin/23.4.0", "iOS"),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15",
            "Linux · Safari"
        ),
    ])
    func realHeadersNameAPlatformAndABrowser(header: String, hint: String) {
        #expect(DeviceHint.describe(userAgent: header) == hint)
    }

    @Test func unknownEmptyOrHostileHeadersGiveNoHintOrOnlyKnownNames() {
        #expect(DeviceHint.describe(userAgent: nil) == nil)
        #expect(DeviceHint.describe(userAgent: "") == nil)
        #expect(DeviceHint.describe(userAgent: "curl/8.5.0") == nil)
        #expect(DeviceHint.describe(userAgent: "python-httpx/0.27.0") == nil)
        // Whatever else the header says, the hint holds names from the lists only.
        let hostile = "<script>alert(1)</script> (iPhone) Firefox/1 \u{202E}evil\r\nX-Injected: 1"
        #expect(DeviceHint.describe(userAgent: hostile) == "iPhone · Firefox")
        // A marker past the part read does not count.
        #expect(DeviceHint.describe(userAgent: String(repeating: "a", count: 600) + " iPhone") == nil)
    }

    @Test func aSessionIsAChainWithALastingTokenStillActive() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func token(_ kind: TokenKind, chain: String, issued: TimeInterval, expires: TimeInterval = 3600) -> TokenRecord {
            var record = TokenRecord(
                kind: kind, hash: UUID().uuidString, userID: "u", clientID: "app", chainID: chain,
                issuedAt: now + issued, expiresAt: now + issued + expires)
            if chain == "a" { record.device = "iPhone" }
            return record
        }
        var used = token(.refresh, chain: "a", issued: -7200, expires: 86400)
        used.usedAt = now - 3600
        var revoked = token(.refresh, chain: "c", issued: -100, expires: 86400)
        revoked.revokedAt = now - 50
        let tokens = [
            used, token(.access, chain: "a", issued: -3600), token(.refresh, chain: "a", issued: -3600, expires: 86400),
            token(.access, chain: "b", issued: -60), token(.refresh, chain: "b", issued: -60, expires: 86400),
            revoked, token(.access, chain: "c", issued: -100, expires: 10),
            token(.code, chain: "d", issued: -10, expires: 60), token(.signOut, chain: "d", issued: -10, expires: 86400),
            token(.device, chain: "e", issued: -10, expires: 86400),
        ]
        let sessions = AccountSession.sessions(of: tokens, currentChain: "a", at: now)
        #expect(sessions.map(\.chainID) == ["a", "b"])
        #expect(sessions[0].current && !sessions[1].current)
        #expect(sessions[0].createdAt == now - 7200 && sessions[0].lastUsedAt == now - 3600 && sessions[0].device == "iPhone")
        #expect(sessions[0].id == AccountSession.handle(ofChain: "a") && sessions[0].id.count == 16)
        #expect(sessions[0].id != AccountSession.handle(ofChain: "b"))
    }
}
