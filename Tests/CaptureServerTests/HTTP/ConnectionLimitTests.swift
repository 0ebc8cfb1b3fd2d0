import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// Slow, silent, strange and too many connections against the real `capture-server` over real sockets.
/// Deadlines are a second or two here (`service.json` keys), so each test takes a few seconds.
@Suite(.serialized) struct ConnectionLimitTests {
    /// Distinct deadlines, so a test can tell which one closed a connection.
    static var deadlines: [String: Any] {
        ["requestHeaderTimeoutSeconds": 1, "requestBodyTimeoutSeconds": 1.5, "idleTimeoutSeconds": 2.5]
    }

    /// Sends `bytes` one at a time, `interval` apart, until the server closes; when it closed, or nil if it never
    /// did. The whole loop runs on a thread of its own, so a busy concurrency pool cannot stretch its steps.
    func dribble(_ bytes: String, on connection: RawHTTPConnection, every interval: Double) async -> Date? {
        await onOwnThread {
            for byte in bytes.utf8 {
                // A send into a closed connection fails; the read after it says whether the server closed it.
                try? connection.send([byte])
                let read = connection.blockingReadUntilClosed(timeout: interval)
                if read.ending == .closed { return read.endedAt }
            }
            return nil
        }
    }

    @Test func aRequestHeadDribbledAByteAtATimeIsClosedAtTheHeaderDeadlineWhileOthersAreServed() async throws {
        let server = try await LiveServerProcess(settings: Self.deadlines)
        let slow = try RawHTTPConnection(port: server.port)
        try slow.send("GET /health/live HTTP/1.1\r\nHost: test\r\n")
        #expect(await server.get("/health/live")?.status == 200, "a slow client does not hold up the others")
        let start = Date()
        let closedAt = try #require(await dribble("X-Slow: " + String(repeating: "a", count: 40), on: slow, every: 0.2))
        let closedAfter = closedAt.timeIntervalSince(start)
        // The deadline counts from the connection opening; bytes arriving do not extend it.
        #expect(closedAfter < 2, "closed \(closedAfter)s into the dribble")
        #expect(await server.get("/health/live")?.status == 200)
    }

    @Test func aConnectionThatSendsNothingIsClosedAtTheHeaderDeadline() async throws {
        let server = try await LiveServerProcess(settings: Self.deadlines)
        let start = Date()
        let silent = try RawHTTPConnection(port: server.port)
        let result = await silent.readUntilClosed(timeout: 5)
        let elapsed = result.endedAt.timeIntervalSince(start)
        #expect(result.ending == .closed)
        #expect(result.data.isEmpty, "closed without a reply")
        #expect(elapsed > 0.8 && elapsed < 2.5, "closed after \(elapsed)s; the header deadline is 1s")
    }

    @Test func aBodyThatStopsShortOfItsContentLengthIsClosedAtTheBodyDeadline() async throws {
        let server = try await LiveServerProcess(settings: Self.deadlines)
        let slow = try RawHTTPConnection(port: server.port)
        let start = Date()
        try slow.send(
            "POST /entity HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\naccess_tok"
        )
        // Ten bytes of a hundred, then a byte every 0.2 s: still far short when the deadline passes.
        let closedAt = try #require(await dribble(String(repeating: "e", count: 40), on: slow, every: 0.2))
        let result = await slow.readUntilClosed(timeout: 3)
        let elapsed = closedAt.timeIntervalSince(start)
        #expect(result.ending == .closed)
        #expect(elapsed > 1.2 && elapsed < 3, "closed after \(elapsed)s; the body deadline is 1.5s")
        #expect(!String(decoding: result.data, as: UTF8.self).contains("HTTP/1.1 5"), "never a 5xx")
        #expect(!server.log.contains("unexpected failure"))
    }

    @Test func aKeptAliveConnectionWaitsForTheIdleDeadlineNotTheHeaderDeadline() async throws {
        // An idle deadline well past the pause below: on a busy machine the pause itself can run long.
        var settings = Self.deadlines
        settings["idleTimeoutSeconds"] = 5
        let server = try await LiveServerProcess(settings: settings)
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /health/live HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(await connection.readReply()?.status == 200)
        // Longer than the header deadline: an idle kept-alive connection is not waiting on a head yet.
        try await Task.sleep(for: .seconds(1.5))
        // The second reply and the idle wait after it on one thread, timed there.
        let (status, result, elapsed) = await onOwnThread {
            try? connection.send("GET /health/live HTTP/1.1\r\nHost: test\r\n\r\n")
            let reply = connection.blockingReadReply()
            let idleSince = Date()
            let result = connection.blockingReadUntilClosed(timeout: 10)
            return (reply?.status, result, result.endedAt.timeIntervalSince(idleSince))
        }
        #expect(status == 200, "the connection was still open")
        #expect(result.ending == .closed)
        #expect(elapsed > 4.5 && elapsed < 8, "closed after \(elapsed)s idle; the idle deadline is 5s")
    }

    @Test func pipelinedRequestsWithABodyAreAnsweredInOrderBeforeARefusedCONNECT() async throws {
        let server = try await LiveServerProcess(settings: Self.deadlines)
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(
            "GET /health/live HTTP/1.1\r\nHost: test\r\n\r\n"
                + "POST /entity HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: 14\r\n\r\naccess_token=x"
                + "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        #expect(await connection.readReply()?.status == 200)
        let entity = try #require(await connection.readReply())
        #expect(entity.status == 200)
        #expect(entity.json["error"] as? String == "invalid_access_token", "the body reached the route whole")
        #expect(await connection.readReply()?.status == 405)
        #expect(await connection.readUntilClosed(timeout: 1.5).ending == .closed)
    }

    /// Hummingbird's `MaximumAvailableConnections` stops accepting at the limit: newcomers complete the TCP
    /// handshake (the kernel's backlog does that) but are not read until a held connection closes.
    @Test func atMaxConnectionsNewcomersWaitUntilAHeldConnectionCloses() async throws {
        let limit = 4
        let server = try await LiveServerProcess(settings: ["maxConnections": limit, "requestHeaderTimeoutSeconds": 20])
        var held: [RawHTTPConnection] = []
        for _ in 0..<limit {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET /health/live HTTP/1.1\r\n")
            held.append(connection)
        }
        // The kernel completed each handshake; the server has taken all four once its accept queue is empty again.
        #expect(try await AcceptQueue.reaches(0, port: server.port), "the held connections were never accepted")
        var waiting: [RawHTTPConnection] = []
        for _ in 0..<2 {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET /health/live HTTP/1.1\r\nHost: test\r\n\r\n")
            waiting.append(connection)
        }
        #expect(await waiting[0].readReply(timeout: 1.5) == nil, "not served while \(limit) connections are held")
        held.removeFirst(2)  // closes two
        for connection in waiting {
            #expect(await connection.readReply(timeout: 3)?.status == 200, "served once held connections closed")
        }
    }

    @Test(arguments: [
        ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 405, "method"),
        ("TRACE / HTTP/1.1\r\nHost: test\r\n\r\n", 405, "method"),
        ("DELETE /entity HTTP/1.1\r\nHost: test\r\n\r\n", 405, "method"),
        ("BREW /pot HTTP/1.1\r\nHost: test\r\n\r\n", 405, "method"),
        ("GET /health/live HTTP/1.1\r\nHost test\r\n\r\n", 400, "request"),
    ])
    func unsupportedMethodsAndUnparseableHeadsGetACompleteJSONReplyAndAClosedConnection(
        request: String, status: Int, argument: String
    ) async throws {
        let server = try await LiveServerProcess(settings: ["requestHeaderTimeoutSeconds": 10])
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(request)
        let reply = try #require(await connection.readReply(timeout: 3), "a complete reply, framed by Content-Length")
        #expect(reply.status == status)
        #expect(reply.headers["content-length"] == "\(reply.body.count)")
        #expect(reply.headers["connection"] == "close")
        #expect(reply.headers["content-type"] == "application/json; charset=utf-8")
        #expect(reply.headers["x-frame-options"] == "DENY")
        #expect(reply.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        if status == 405 { #expect(reply.headers["allow"] == "GET, HEAD, POST") }
        #expect(reply.json["stat"] as? String == "error")
        #expect(reply.json["code"] as? Int == 200)
        #expect(reply.json["error"] as? String == "invalid_argument")
        #expect(reply.json["argument"] as? String == argument)
        // Long before the 10 s header deadline: the server ends the connection itself.
        #expect(await connection.readUntilClosed(timeout: 1.5).ending == .closed)
        #expect(await server.get("/health/live")?.status == 200)
    }

    @Test(arguments: [
        ("zz\r\naccess_token=x\r\n0\r\n\r\n", false),  // a chunk size that is not hex
        ("40\r\naccess_token=x", true),  // a chunk cut short by the client ending its side
    ])
    func aMalformedChunkedBodyGets400NamingTheBodyNeverAnUnexpectedFailure(body: String, endsStream: Bool) async throws {
        let server = try await LiveServerProcess(settings: [:])
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(
            "POST /entity HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + body)
        if endsStream { connection.shutdownWrite() }
        let reply = try #require(await connection.readReply(timeout: 3))
        #expect(reply.status == 400)
        #expect(reply.headers["content-length"] == "\(reply.body.count)")
        #expect(reply.headers["connection"] == "close")
        #expect(reply.json["stat"] as? String == "error")
        #expect(reply.json["code"] as? Int == 200)
        #expect(reply.json["error"] as? String == "invalid_argument")
        #expect(reply.json["argument"] as? String == "body")
        #expect((reply.json["error_description"] as? String)?.hasPrefix("body: ") == true)
        #expect(await connection.readUntilClosed(timeout: 3).ending == .closed)
        #expect(!server.log.contains("unexpected failure"))
    }

    @Test func hstsIsSentOnlyForAnHTTPSPublicOriginAndFramingIsDeniedEverywhere() async throws {
        for origin in ["https://id.example.com", nil] {
            try await withAPI(configure: { $0.publicOrigin = origin }) { api, _ in
                let replies = [
                    try await api.get("/health/live"), try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app"),
                    try await api.get("/no/such/page"), try await api.post("/entity", [:]),
                ]
                for reply in replies {
                    #expect(reply.headers[.init("X-Frame-Options")!] == "DENY")
                    #expect(reply.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                    #expect(reply.headers[.strictTransportSecurity] == (origin == nil ? nil : "max-age=31536000"))
                }
            }
        }
    }
}
