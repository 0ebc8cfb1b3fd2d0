import CaptureCore
import Foundation
import GRDB

/// A row of `clients`, as SQLite keeps it (lists as JSON text, GRDB's `Codable` encoding), and its mapping to and from
/// `Client`. A response type or feature this build does not know reads as none.
struct ClientRow: StoredRow, Codable, PersistableRecord {
    static let databaseTableName = "clients"

    var clientID: String
    var name: String
    var secretHash: String?
    var sealedSecret: String?
    var retiringSecretHash: String?
    var retiringSealedSecret: String?
    var retiringSecretExpiresAt: Date?
    var redirectURIs: [String]
    var allowedOrigins: [String]
    var responseTypes: [String]
    var legacyTokenURL: Bool
    var accessTokenLifeHours: Double?
    var keepSessionsOnPasswordChange: Bool
    var requireVerifiedEmail: Bool
    var allowUnverifiedEmail: Bool
    var features: [String]
    var whitelist: [String]
    var createdAt: Date

    init(_ client: Client) {
        clientID = client.clientID
        name = client.name
        secretHash = client.secretHash
        sealedSecret = client.sealedSecret
        retiringSecretHash = client.retiringSecret?.hash
        retiringSealedSecret = client.retiringSecret?.sealed
        retiringSecretExpiresAt = client.retiringSecret?.expiresAt
        redirectURIs = client.redirectURIs
        allowedOrigins = client.allowedOrigins
        responseTypes = client.responseTypes.map(\.rawValue)
        legacyTokenURL = client.legacyTokenURL
        accessTokenLifeHours = client.accessTokenLifeHours
        keepSessionsOnPasswordChange = client.keepSessionsOnPasswordChange
        requireVerifiedEmail = client.requireVerifiedEmail
        allowUnverifiedEmail = client.allowUnverifiedEmail
        features = client.features.sorted().map(\.rawValue)
        whitelist = client.whitelist
        createdAt = client.createdAt
    }

    var value: Client {
        var client = Client(
            clientID: clientID, name: name, secretHash: secretHash, redirectURIs: redirectURIs,
            allowedOrigins: allowedOrigins, responseTypes: ResponseType.list(responseTypes),
            legacyTokenURL: legacyTokenURL, accessTokenLifeHours: accessTokenLifeHours, createdAt: createdAt)
        client.keepSessionsOnPasswordChange = keepSessionsOnPasswordChange
        client.requireVerifiedEmail = requireVerifiedEmail
        client.allowUnverifiedEmail = allowUnverifiedEmail
        client.features = Set(features.compactMap(ClientFeature.init(rawValue:)))
        client.whitelist = whitelist
        client.sealedSecret = sealedSecret
        if let hash = retiringSecretHash, let expiry = retiringSecretExpiresAt {
            client.retiringSecret = RetiringSecret(hash: hash, sealed: retiringSealedSecret, expiresAt: expiry)
        }
        return client
    }
}
