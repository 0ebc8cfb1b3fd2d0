import CaptureCore
import CaptureTestSupport
import Foundation
import HTTPTypes

/// A backend's client for the server API tests, and the three ways it presents itself (JANRAIN-API.md §2).
struct ServerAPIClient: Sendable {
    var id: String
    var secret: String

    struct Credentials {
        var fields: [String: String] = [:]
        var headers: HTTPFields = [:]
    }

    var basic: Credentials {
        Credentials(headers: [.authorization: "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()])
    }
    var parameters: Credentials { Credentials(fields: ["client_id": id, "client_secret": secret]) }

    /// Janrain-signed, over `parameters` as they will be sent, dated `at` (now by default).
    func signed(_ path: String, _ parameters: [String: String], _ world: TestWorld, at: Date? = nil) -> Credentials {
        let date = JanrainSignature.format(at ?? world.time.now())
        let signature = JanrainSignature.signature(
            of: JanrainSignature.signedText(path: path, date: date, parameters: parameters), secret: secret)
        return Credentials(headers: [.authorization: "Signature \(id):\(signature)", .date: date])
    }
}

enum ServerAPIClients {
    /// Registers a confidential client with `features` (and a whitelist), as an operator registers one.
    static func add(
        _ world: TestWorld, _ id: String, _ features: Set<ClientFeature>, whitelist: [String] = []
    ) async throws -> ServerAPIClient {
        let (added, secret) = try await world.service.clientAdmin.addClient(
            id: id, name: id, confidential: true, redirectURIs: ["https://backend.example/cb"], allowedOrigins: [],
            responseTypes: ["code"], legacyTokenURL: false)
        var client = added
        client.features = features
        client.whitelist = whitelist
        try await world.service.store.clients.upsert(client)
        return ServerAPIClient(id: id, secret: secret!)
    }
}
