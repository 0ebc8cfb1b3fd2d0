import CaptureJSON
import CaptureTestSupport
import Foundation

/// Verifies a compact JWS against a JWKS document with Authlib's `authlib.jose` (a library nobody here wrote), in
/// the system's python3: answers the header and claims Authlib decoded, or throws what it said.
enum AuthlibVerifier {
    static let script = """
        import json, sys
        from authlib.jose import JsonWebKey, jwt
        given = json.load(sys.stdin)
        keys = JsonWebKey.import_key_set(given["jwks"])
        claims = jwt.decode(given["token"], keys)
        print(json.dumps({"header": dict(claims.header), "claims": dict(claims)}))
        """

    struct Decoded {
        let header: [String: Any]
        let claims: [String: Any]
    }

    static func verify(token: String, jwks: JSONValue) async throws -> Decoded {
        let input: JSONValue = ["jwks": jwks, "token": .string(token)]
        let (status, output, errors) = try await run(stdin: Data(input.encodedBytes()))
        guard status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
            let header = object["header"] as? [String: Any], let claims = object["claims"] as? [String: Any]
        else {
            throw FixtureError(description: "authlib refused (exit \(status)): \(errors.suffix(1500))")
        }
        return Decoded(header: header, claims: claims)
    }

    /// `python3 -c script` with `stdin`; output through files, so a large reply never fills a pipe.
    static func run(stdin: Data) async throws -> (Int32, String, String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("authlib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inURL = scratch.appendingPathComponent("stdin"), outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        try stdin.write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [FixtureServer.interpreter, "-c", script]
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        await process.exited()
        return (
            process.terminationStatus, String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        )
    }
}
