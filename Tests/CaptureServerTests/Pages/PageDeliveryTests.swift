import CaptureCore
import CaptureTestSupport
import CompressNIO
import Foundation
import Hummingbird
import NIOCore
import Testing

@testable import CaptureServer

/// How the pages travel (issue 54, docs/adr/0070): 304s that keep the connection, gzip made once, content-addressed
/// URLs kept for good, and the widget's modules joined into one script per page kind.
@Suite struct PageDeliveryTests {
    static func gunzip(_ data: Data) throws -> String {
        var buffer = ByteBuffer(data: data)
        let plain = try buffer.decompress(with: .gzip())
        return String(buffer: plain)
    }

    // MARK: - Compression

    @Test func acceptEncodingIsReadWithItsQualities() {
        for header in [
            "gzip", "gzip, deflate, br", "br;q=1, GZIP;q=0.5", "*", "x-gzip", "deflate, *;q=0.1", " gzip ;q=1.0", "gzip;Q=0.001",
            "identity;q=0, gzip; level=1", ",,gzip,", "gzip;q=1.000", "\tgzip\t",
        ] {
            #expect(AcceptEncoding.allowsGzip(header), "\(header)")
        }
        for header in [
            nil, "", "identity", "br", "gzip;q=0", "gzip; q=0.000", "*, gzip;q=0", "*;q=0", "gzip;q=2", "gzip;q=x",
            "gzip;q=1.001",
            "gzip;q=0.0001", "gzip;q=", "gzip;q=.5", "gzipped", "x-gzip;q=0, *",
        ] {
            #expect(!AcceptEncoding.allowsGzip(header), "\(header ?? "nil")")
        }
    }

    @Test func assetsAndPagesAreGzippedOnlyWhenTheClientAcceptsIt() async throws {
        try await withAPI { api, _ in
            for path in [
                "/flows/assets/capture-rest.js", "/flows/assets/capture.css", "/flows/webViewSignIn?client_id=demo-mobile-app",
            ] {
                let plain = try await api.get(path)
                #expect(plain.status == .ok)
                #expect(plain.headers[.contentEncoding] == nil, "\(path)")
                #expect(plain.headers[.vary]?.contains("Accept-Encoding") == true, "\(path)")
                let coded = try await api.get(path, headers: [.acceptEncoding: "gzip, deflate, br"])
                #expect(coded.headers[.contentEncoding] == "gzip", "\(path)")
                #expect(coded.headers[.vary]?.contains("Accept-Encoding") == true, "\(path)")
                #expect(coded.headers[.contentType] == plain.headers[.contentType])
                #expect(coded.data.count * 2 < plain.data.count, "\(path): \(coded.data.count) of \(plain.data.count)")
                #expect(try Self.gunzip(coded.data) == plain.text, "\(path)")
                #expect(coded.headers[.eTag] != plain.headers[.eTag], "each coding is its own representation")
                let refused = try await api.get(path, headers: [.acceptEncoding: "gzip;q=0, identity"])
                #expect(refused.headers[.contentEncoding] == nil, "\(path)")
                // Either validator means the client holds this version.
                for etag in [plain.headers[.eTag], coded.headers[.eTag]] {
                    let again = try await api.get(
                        path, headers: [.acceptEncoding: "gzip", .ifNoneMatch: try #require(etag)])
                    #expect(again.status == .notModified, "\(path)")
                    #expect(again.headers[.eTag] == coded.headers[.eTag])
                }
            }
            // A few hundred bytes go as they are, and say nothing about codings.
            let small = try await api.get("/flows/assets/page-init.js", headers: [.acceptEncoding: "gzip"])
            #expect(small.headers[.contentEncoding] == nil)
            #expect(small.headers[.vary] == nil)
        }
    }

    @Test func aRenderedPageIsCompressedOnceAndKept() async throws {
        try await withAPI { api, _ in
            let path = "/flows/webViewSignIn?client_id=demo-mobile-app"
            let first = try await api.get(path, headers: [.acceptEncoding: "gzip"])
            let second = try await api.get(path, headers: [.acceptEncoding: "gzip"])
            #expect(first.data == second.data)
            #expect(first.headers[.eTag] == second.headers[.eTag])
            #expect(first.headers[.vary] == "Accept-Language, Accept-Encoding")
            #expect(first.headers[.cacheControl] == "no-cache")
        }
    }

    // MARK: - Content-addressed URLs

    @Test func thePagesNameTheirAssetsByContentAndThoseAreKeptForGood() async throws {
        try await withAPI { api, _ in
            let page = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app")
            let paths = contentAddressedPaths(in: page.text)
            let names = paths.map { withoutContentAddresses($0).split(separator: "/").last.map(String.init) ?? "" }
            // capture.css, the client's small theme and capture-first.js are in the page (docs/adr/0073).
            #expect(names == ["capture-rest.js"], "\(paths)")
            for path in paths {
                let reply = try await api.get(path)
                #expect(reply.status == .ok, "\(path)")
                #expect(reply.headers[.cacheControl] == "public, max-age=31536000, immutable", "\(path)")
                #expect(reply.headers[.eTag] != nil)
                // The plain name still works (customers' pages name files), revalidated each time.
                let plainPath = withoutContentAddresses(path)
                let plain = try await api.get(plainPath)
                #expect(plain.text == reply.text, "\(plainPath)")
                #expect(plain.headers[.cacheControl] == "no-cache", "\(plainPath)")
                // Another hash (a page from an instance with other files): today's bytes, not kept for good.
                let other = try await api.get(
                    path.replacingOccurrences(of: #"\.[0-9a-f]{16}\."#, with: ".0000000000000000.", options: .regularExpression))
                #expect(other.status == .ok)
                #expect(other.text == reply.text)
                #expect(other.headers[.cacheControl] == "no-cache")
            }
            #expect(try await api.get("/flows/assets/no-such.0000000000000000.js").status == .notFound)
            #expect(try await api.get("/flows/assets/..%2F..%2FSettings%2Fservice.0000000000000000.json").status == .notFound)
        }
    }

    /// A copy of WebFlows/assets with `change` applied to it, loaded as the service loads it.
    static func assets(changing change: (URL) throws -> Void = { _ in }) throws -> StaticAssets {
        let source = URL(fileURLWithPath: "WebFlows/assets")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("assets-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: source, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try change(copy)
        return try StaticAssets.load(directory: copy)
    }

    @Test func aChangedAssetGetsANewURLAndSoDoTheBundlesAndLoadersThatHoldIt() throws {
        let before = try Self.assets()
        let after = try Self.assets { directory in
            let file = directory.appendingPathComponent("capture-terms.js")
            try (try String(contentsOf: file, encoding: .utf8) + "\n/* changed */\n").write(
                to: file, atomically: true, encoding: .utf8)
        }
        for changed in [
            "capture-terms.js", "capture-rest.js", "capture-widget.js", "janrain-dropin.js", "capture-ui.js", "janrain-load.js",
        ] {
            #expect(before.path(of: changed) != after.path(of: changed), "\(changed)")
        }
        for same in ["capture-core.js", "capture.css", "janrain-bridge.js", "capture-first.js"] {
            #expect(before.path(of: same) == after.path(of: same), "\(same)")
        }
        // The loaders name their bundle by its content-addressed URL.
        let loader = String(buffer: try #require(after.assets["janrain-load.js"]).bytes)
        #expect(loader.contains("'\(try #require(after.path(of: "janrain-dropin.js")))'"))
        let entry = String(buffer: try #require(after.assets["capture-ui.js"]).bytes)
        #expect(entry.contains("'\(try #require(after.path(of: "capture-widget.js")))'"))
    }

    // MARK: - Bundles

    @Test func aBundleIsItsMembersInTheirOrder() throws {
        let assets = try Self.assets()
        let page = String(buffer: try #require(assets.assets["capture-first.js"]).bytes)
        let members = [
            "janrain-settings.js", "janrain-bridge.js", "page-init.js", "capture-core.js", "capture-arrival.js",
            "capture-screens.js", "capture-host.js",
        ]
        var cursor = page.startIndex
        for member in members {
            let file = ScriptComments.blanked(String(buffer: try #require(assets.assets[member]).bytes))
            let found = try #require(
                page.range(of: "/* ---- \(member) ---- */\n" + file, range: cursor..<page.endIndex), "\(member)")
            #expect(
                file.split(separator: "\n", omittingEmptySubsequences: false).count
                    == String(buffer: try #require(assets.assets[member]).bytes).split(
                        separator: "\n", omittingEmptySubsequences: false
                    ).count)
            cursor = found.upperBound
        }
        let dropIn = String(buffer: try #require(assets.assets["janrain-dropin.js"]).bytes)
        #expect(dropIn.contains("/* ---- capture-jtl.js ---- */") && dropIn.contains("/* ---- capture-dropin.js ---- */"))
        #expect(!page.contains("capture-dropin.js ----"), "the flow pages carry none of the drop-in's modules")
    }

    @Test func commentLinesAreLeftEmptyAndCodeStaysOnItsLine() {
        let script = """
            /*
             * A file's comment.
             */
            (function () {
              'use strict';
              // A line of its own.
              var a = '/* not a comment */'; // after code: stays
              /* one line */
              /* before */ var b = 1;
              /* a block that
                 ends before code */ var c = 2;
              var d = 4 / 2; /* starts after code
               * and goes on
               */
            })();
            """
        let expected = """



            (function () {
              'use strict';

              var a = '/* not a comment */'; // after code: stays

              /* before */ var b = 1;

                                     var c = 2;
              var d = 4 / 2; /* starts after code
               * and goes on
               */
            })();
            """
        #expect(ScriptComments.blanked(script) == expected)
    }

    @Test func aBundleNamingWhatIsNotThereStopsStartUp() throws {
        for (lists, problem) in [
            (#"{"bundles": {"a.js": ["capture-core.js", "missing.js"]}}"#, "'missing.js' is neither"),
            (#"{"bundles": {"a.js": ["b.js"], "b.js": ["a.js"]}}"#, "includes itself"),
            (#"{"bundles": {"capture-core.js": ["capture-host.js"]}}"#, "has this name already"),
            (#"{"bundles": {"a.js": ["capture-core.js", "capture-core.js"]}}"#, "holds a file twice"),
            (#"{"bundles": ["capture-core.js"]}"#, "must be an object"),
        ] {
            #expect(throws: SettingsError.self, "\(lists)") {
                do {
                    _ = try Self.assets { directory in
                        try lists.write(to: directory.appendingPathComponent("bundles.json"), atomically: true, encoding: .utf8)
                    }
                } catch let error as SettingsError {
                    #expect(error.problem.contains(problem), "\(error)")
                    throw error
                }
            }
        }
    }
}
