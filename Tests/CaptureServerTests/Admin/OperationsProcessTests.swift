import CaptureCore
import CaptureStore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

/// The operations wiring of the real `capture-server` binary: JSON logs and `/metrics` from the settings, and a
/// database from a newer build refused before anything is served.
@Suite(.serialized) struct OperationsProcessTests {
    @Test func jsonLogsAndMetricsFromTheSettings() async throws {
        let server = try await LiveServerProcess(
            settings: ["logFormat": "json", "logLevel": "info", "requestLogLevel": "info", "metricsPublic": true])
        defer { server.stop() }
        let metrics = try #require(await server.get("/metrics"))
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("capture_http_requests_total{"), "\(text)")
        #expect(text.contains(#"route="/health/ready""#))
        await server.stopped()
        let lines = server.log.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(lines.contains { $0.contains(#""message":"request""#) }, "\(server.log)")
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] is String && object?["time"] is String, "\(line)")
        }
    }

    /// At `trace`, the most the log says, no secret is in it: ServiceLifecycle prints every service it starts, and a
    /// service holds the settings and providers (docs/threat-model.md, "Secrets in logs").
    @Test func noLogLevelPrintsASecret() async throws {
        let secrets = [
            "provider-secret-f00d", "client-secret-beef", "smtp-password-cafe",
        ]
        var clients =
            try #require(
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: TestWorld.settingsDirectory.appendingPathComponent("service.json"))) as? [String: Any]
            )["clients"] as? [[String: Any]] ?? []
        clients.append(["clientId": "confidential-backend", "secret": secrets[1], "redirectUris": []])
        let server = try await LiveServerProcess(
            settings: [
                "logLevel": "trace", "clients": clients,
                // A provider that cannot be discovered is left out, but its settings and secret were read.
                "socialProviders": [
                    [
                        "name": "corp", "displayName": "Corp", "issuer": "http://127.0.0.1:1", "clientId": "c",
                        "allowPlainHTTP": true,
                    ]
                ],
                "mail": [
                    "from": "Capture <no-reply@example.com>", "templates": "mail",
                    "smtp": ["host": "127.0.0.1", "port": 1, "security": "none", "username": "capture"],
                ],
            ],
            environment: ["CAPTURE_PROVIDER_CORP_SECRET": secrets[0], "CAPTURE_SMTP_PASSWORD": secrets[2]])
        defer { server.stop() }
        #expect(await server.get("/health/live")?.status == 200)
        await server.stopped()
        #expect(
            server.log.contains("Starting service") || server.log.contains("trace"),
            "the log is at trace: \(server.log.prefix(2000))")
        for secret in secrets { #expect(!server.log.contains(secret), "\(secret) in the log") }
    }

    /// With `adminPort`, the admin API and `/metrics` are served on that listener only; the public one has neither.
    @Test func theAdminAPIAndMetricsMoveToTheAdminListener() async throws {
        // Port 0: the kernel's choice, announced in the log once the listener is bound.
        let server = try await LiveServerProcess(settings: ["adminPort": 0, "adminHost": "127.0.0.1"])
        defer { server.stop() }
        #expect(await server.get("/admin/v1/tokens")?.status == 404)
        #expect(await server.get("/metrics")?.status == 404)
        #expect(await server.get("/health/live")?.status == 200)
        let marker = "admin API listening on 127.0.0.1:"
        var adminPort: Int?
        for _ in 0..<100 where adminPort == nil {
            if let range = server.log.range(of: marker) {
                adminPort = Int(server.log[range.upperBound...].prefix { $0.isNumber })
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let port = try #require(adminPort, "no admin listener announced: \(server.log.suffix(2000))")
        #expect(port != server.port)
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET /admin/v1/tokens HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n")
        let admin = await connection.readReply(timeout: 3)
        #expect(admin?.status == 401)
        #expect(admin?.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(admin?.headers["content-type"] == "application/problem+json")
        let metrics = try RawHTTPConnection(port: port)
        try metrics.send("GET /metrics HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n")
        #expect(await metrics.readReply(timeout: 3)?.status == 200)
    }

    /// A database with a migration this build does not know (as a newer build would leave it).
    static func newerDatabase() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("newer-\(UUID().uuidString)")
        let path = directory.appendingPathComponent("capture.sqlite").path
        let pool = try CaptureDatabase.open(path: path)
        try pool.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-a-newer-build')")
        }
        try pool.close()
        return path
    }

    @Test func theServerRefusesADatabaseFromANewerBuild() async throws {
        let database = try Self.newerDatabase()
        let (process, _, err) = try ServerProcessTests().launch(
            ["--port", "0", "--db", database, "--settings", TestWorld.settingsDirectory.path])
        await process.exited()
        #expect(process.terminationStatus == DatabaseTooNew.exitCode)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("refusing to start"), "\(message)")
        #expect(message.contains("newer version") && message.contains("v99-from-a-newer-build"), "\(message)")
    }
}
