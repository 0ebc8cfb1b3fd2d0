import CaptureCore
import CaptureTestSupport
import Foundation
import NIOCore
import Testing

@testable import CaptureServer

/// 304s that keep their connection (issue 54, docs/adr/0070): NIO's encoder drops `Content-Length` from replies
/// without a body, and WebKit closes a connection whose reply has neither it nor `Transfer-Encoding`.
@Suite struct NotModifiedFramingTests {
    /// NIO's encoder drops `Content-Length` from a 304; WebKit then closes the connection. Over a real socket, the
    /// 304 says `content-length: 0` and the same connection answers the next request.
    @Test func aNotModifiedReplyKeepsItsConnection() async throws {
        let world = try await TestWorld.make { settings in
            settings.host = "127.0.0.1"
            settings.port = 0
        }
        try await withLoopbackServer({ try buildApplication(features: world.service, onServerRunning: $0) }) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /flows/assets/capture.css HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let first = try #require(await connection.readReply())
            #expect(first.status == 200)
            let etag = try #require(first.headers["etag"])
            for _ in 0..<2 {
                try connection.send("GET /flows/assets/capture.css HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: \(etag)\r\n\r\n")
                let again = try #require(await connection.readReply())
                #expect(again.status == 304)
                #expect(again.headers["content-length"] == "0")
                #expect(again.headers["connection"] == nil)
            }
            try connection.send("GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(await connection.readReply()?.status == 200, "the connection still answers after the 304s")
        }
    }

    @Test func contentAddressedNamesReadBack() {
        let hash = "0123456789abcdef"
        for name in ["capture.css", "capture-rest.js", "demo.app.css", "x.logo.svg"] {
            let addressed = ContentAddress.name(name, hash: hash)
            #expect(ContentAddress.parse(addressed)?.name == name)
            #expect(ContentAddress.parse(addressed)?.hash == hash)
        }
        #expect(ContentAddress.name("capture.css", hash: hash) == "capture.0123456789abcdef.css")
        for file in ["capture.css", "capture.0123456789ABCDEF.css", "capture.0123.css", ".0123456789abcdef.css"] {
            #expect(ContentAddress.parse(file) == nil, "\(file)")
        }
    }

    @Test func theFramingGoesAfterTheStatusLineOnly() {
        let head = ByteBuffer(string: "HTTP/1.1 304 Not Modified\r\netag: \"x\"\r\n\r\n")
        #expect(
            String(buffer: NotModifiedFraming.Writer.framed(head))
                == "HTTP/1.1 304 Not Modified\r\ncontent-length: 0\r\netag: \"x\"\r\n\r\n")
    }
}
