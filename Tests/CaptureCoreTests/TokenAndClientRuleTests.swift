import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@Suite struct TokenAndClientRuleTests {
    @Test func tokensAre256BitURLSafeAndDistinct() {
        let minter = TokenMinter(random: SystemRandom())
        let tokens = (0..<200).map { _ in minter.mint() }
        #expect(Set(tokens).count == 200)
        for token in tokens {
            #expect(token.count == 43)
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    /// A token starting with `-` reads as an option on a command line (`capturectl token introspect -Ab…`): the
    /// minter draws again instead.
    @Test func noTokenStartsWithADash() {
        /// Its first draw encodes to a leading `-` (0xF8: the top six bits are 62), every later one to `A…`.
        final class DashFirst: RandomSource, @unchecked Sendable {
            var draws = 0
            func bytes(_ count: Int) -> [UInt8] {
                draws += 1
                return draws == 1 ? [0xF8] + Array(repeating: 0, count: count - 1) : Array(repeating: 0, count: count)
            }
        }
        let source = DashFirst()
        let token = TokenMinter(random: source).mint()
        #expect(source.draws == 2 && token.hasPrefix("A") && token.count == 43)
    }

    @Test func randomDrawsHaveTheirLengthAndNeverRepeat() {
        let random = SystemRandom()
        #expect(random.bytes(0).isEmpty && random.bytes(1).count == 1 && random.bytes(27).count == 27)
        let draws = (0..<1000).map { _ in random.bytes(16) }
        #expect(Set(draws).count == 1000)
        // Every byte value turns up across 16,000 bytes (each is missing with probability about 1e-27).
        #expect(Set(draws.joined()).count == 256)
    }

    @Test func theStoredHashIsSHA256Hex() {
        #expect(TokenMinter.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func tokensForTheTokensTableAreLedByTheirMintTime() throws {
        let minter = TokenMinter(random: SystemRandom())
        let at = Date(timeIntervalSince1970: 1_795_000_000.123)
        let tokens = (0..<200).map { _ in minter.mintToken(at: at) }
        #expect(Set(tokens).count == 200)
        for token in tokens {
            #expect(token.count == 44 && token.hasPrefix("A"))
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            let bytes = try #require(Data(base64URLEncoded: token))
            #expect(bytes.count == 33 && bytes.prefix(6) == Data([0x01, 0xA1, 0xEE, 0x56, 0x5E, 0x7B]))
        }
        // 1_795_000_000_123 ms is 0x01A1EE565E7B: the key is that time in hex, then the token's SHA-256.
        #expect(TokenMinter.key(tokens[0]) == "01a1ee565e7b" + TokenMinter.hash(tokens[0]))
        #expect(TokenRecord.fingerprint(ofKey: TokenMinter.key(tokens[0])) == String(TokenMinter.hash(tokens[0]).prefix(12)))
    }

    /// What makes the keys of new tokens land together at the end of the key index: later mints sort after earlier
    /// ones, to the millisecond.
    @Test func keysOfLaterTokensSortAfterEarlierOnes() {
        let minter = TokenMinter(random: SystemRandom())
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let keys = (0..<50).map { TokenMinter.key(minter.mintToken(at: start + Double($0) * 0.001)) }
        #expect(keys == keys.sorted())
        #expect(Set(keys.map { $0.count }) == [76])
    }

    /// Tokens minted before (43 characters) and strings of any other shape keep the plain SHA-256 as their key, so
    /// everything stored before time-led keys is found as before.
    @Test func otherStringsKeepThePlainSHA256AsTheirKey() {
        let older = TokenMinter(random: SystemRandom()).mint()
        for text in [older, "abc", "", String(repeating: "*", count: 44), String(repeating: "A", count: 45)] {
            #expect(TokenMinter.key(text) == TokenMinter.hash(text), "\(text)")
        }
        #expect(TokenRecord.fingerprint(ofKey: TokenMinter.key(older)) == String(TokenMinter.hash(older).prefix(12)))
    }

    @Test func constantTimeComparisonIsExact() {
        #expect(ConstantTime.equals("secret", "secret"))
        #expect(!ConstantTime.equals("secret", "secreT"))
        #expect(!ConstantTime.equals("secret", "secret2"))
        #expect(!ConstantTime.equals("", "x"))
    }

    /// RFC 6749 §3.1.2.2 and RFC 9700 §4.1.3: the registered URI exactly, folding only the scheme's and host's case;
    /// the service's own flow pages take their query (the page sends its own address).
    @Test func redirectsMatchTheRegisteredURIExactly() {
        let allowed = ["/flows/webViewSignIn", "https://app.example.com/callback", "http://android.library"]
        let origin = "http://127.0.0.1:8080"
        for accepted in [
            "http://127.0.0.1:8080/flows/webViewSignIn?client_id=x", "HTTPS://App.Example.COM/callback",
            "https://app.example.com/callback", "http://android.library", "http://android.library/",
        ] {
            #expect(ClientRules.matchRedirect(accepted, allowed: allowed, publicOrigin: origin) != nil, "\(accepted)")
        }
        for refused in [
            "http://127.0.0.1:8081/flows/webViewSignIn", "https://127.0.0.1:8080/flows/webViewSignIn",
            "http://127.0.0.1:8080/flows/webViewSignIn/extra", "https://app.example.com.evil.com/callback",
            "https://app.example.com/callback2", "https://user@app.example.com/callback", "javascript:alert(1)",
            // What the last check found accepted: a default port spelled out, other forms of the host, a query or a
            // fragment on a registered URI, a path in other letters or encoding.
            "https://app.example.com:443/callback", "http://android.library:80", "http://ａｎｄｒｏｉｄ.library",
            "http://android。library", "http://android%2Elibrary", "https://app.example.com/callback?x=1",
            "https://app.example.com/callback#f", "http://127.0.0.1:8080/flows/webViewSignIn#f",
            "http://127.0.0.1:8080/flows/WebViewSignIn", "http://127.0.0.1:8080/flows/webView%53ignIn",
            "https://app.example.com/callback/", "https://app.example.com//callback",
        ] {
            #expect(ClientRules.matchRedirect(refused, allowed: allowed, publicOrigin: origin) == nil, "\(refused)")
        }
        #expect(!ClientRules.isValidRedirectPattern("https://app.example.com/callback#f"))
    }

    @Test func appReturnAddressesArePrivateUseSchemesMatchedExactly() {
        let allowed = ["/flows/webViewSignIn", "com.example.app:/social"]
        #expect(ClientRules.isValidRedirectPattern("com.example.app:/social"))
        #expect(ClientRules.matchRedirect("com.example.app:/social", allowed: allowed, publicOrigin: "http://h") != nil)
        for refused in [
            "com.example.app:/social/extra", "com.example.apps:/social", "com.example.app:social", "exampleapp:/social",
            "javascript:/alert(1)", "data:/x", "Com.Example.App:/social", ".com.example:/social", "com.example.app:/so cial",
            "com.example.app:/social#x", "com.example.app:/social?x=1",
        ] {
            #expect(ClientRules.matchRedirect(refused, allowed: allowed, publicOrigin: "http://h") == nil, "\(refused)")
        }
        #expect(
            !ClientRules.isValidRedirectPattern("javascript:alert(1)") && !ClientRules.isValidRedirectPattern("exampleapp:/x"))
    }

    @Test func aLeakyBucketRefusesPastItsCapacityAndDrainsEvenly() {
        let rule = ThrottleRule(capacity: 3, drainSeconds: 60)
        let start = Date(timeIntervalSince1970: 0)
        var state: ThrottleState?
        for _ in 0..<3 {
            #expect(!rule.isExhausted(state, at: start))
            state = rule.adding(to: state, at: start)
        }
        #expect(rule.isExhausted(state, at: start + 1))
        // One event drains every 20 s: one more attempt after 20 s, all three after 60 s; the row expires then too.
        #expect(!rule.isExhausted(state, at: start + 20))
        #expect(rule.level(of: state, at: start + 60) == 0)
        #expect(state?.expiresAt == start + 60)
    }

    @Test func aStreakNeverDrains() {
        let rule = ThrottleRule(capacity: 2, drainSeconds: nil)
        let start = Date(timeIntervalSince1970: 0)
        let state = rule.adding(to: rule.adding(to: nil, at: start), at: start)
        #expect(rule.isExhausted(state, at: start + 86400 * 29))
    }
}

@Suite struct CaptureDateTests {
    @Test func formatsUTCWithMicroseconds() {
        #expect(CaptureDate.format(Date(timeIntervalSince1970: 1_800_000_000.25)) == "2027-01-15 08:00:00.250000 +0000")
        #expect(CaptureDate.format(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000000 +0000")
    }

    /// Digits written one by one: the same text as `String(format:)` on `gmtime_r`'s fields, over years from 1 to past
    /// 9999 (which keep all their digits) and every millisecond rounding.
    @Test func formatsAsPrintfOnTheCalendarFields() {
        var generator = SeededGenerator()
        let dates =
            [-62_135_596_800.0, 253_402_300_799.999, 253_402_300_800, 1_800_000_000.9995, -1.5]
            + (0..<2000).map { _ in Double.random(in: -62_135_596_800...400_000_000_000, using: &generator) }
        for seconds in dates {
            let date = Date(timeIntervalSince1970: seconds)
            let interval = date.timeIntervalSince1970
            var whole = time_t(interval.rounded(.down))
            let millis = min(Int(((interval - Double(whole)) * 1_000_000 + 1.5).rounded(.down)) / 1000, 999)
            var parts = tm()
            gmtime_r(&whole, &parts)
            let expected = String(
                format: "%04d-%02d-%02d %02d:%02d:%02d.%03d000 +0000", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis)
            #expect(CaptureDate.format(date) == expected, "\(seconds)")
            var appended = Array("x".utf8)
            CaptureDate.write(date, to: &appended)
            #expect(appended == Array(("x" + expected).utf8))
        }
        // A millisecond date PostgreSQL kept in whole microseconds, truncated just below it, reads as it was written.
        #expect(CaptureDate.format(Date(timeIntervalSince1970: 1_800_000_000.586999)).hasSuffix(":00.587000 +0000"))
        #expect(CaptureDate.format(Date(timeIntervalSince1970: 1_800_000_000.586997)).hasSuffix(":00.586000 +0000"))
    }

    /// `/verify` parses its audience through `URLOrigin.reused`: the same answers as a fresh parse, the first time and
    /// every time after, for origins and for text that is none.
    @Test func reusedOriginsAnswerAsAFreshParse() {
        let texts =
            [
                "https://App.Example:443", "http://android.library", "https://app.example:8443/path?q", "ftp://files.example",
                "https://user:pw@app.example", "not a url", "", "http://", "HTTP://Example.COM:80",
            ] + (0..<300).map { "https://host\($0).example" }
        for _ in 0..<2 {
            for text in texts { #expect(URLOrigin.reused(text) == URLOrigin(text), "\(text)") }
        }
        #expect(URLOrigin.reused("HTTP://Example.COM:80")?.description == "http://example.com")
    }
}
