import CaptureJSON
import Foundation

/// Janrain's record calls for customers' backends (`entity`, `entity.find`, `entity.count`, `entity.create`,
/// `entity.bulkCreate`, `entity.update`, `entity.replace`, `entity.delete`, `entityType`, `entityType.list`). A
/// client's call names a record by a selector and writes as an operator (read-only attributes included); a user's
/// access token reaches only its own record, through the profile feature, and a selector beside it is ignored.
/// Records written here are the records everything else reads: the same schema checks, stamps, audit rows.
public struct RecordService: Sendable {
    let users: any UserRepository
    let identities: any IdentityRepository
    let passkeys: any PasskeyRepository
    let hasher: any PasswordHasher
    let catalog: FlowCatalog
    let time: any TimeSource
    let minter: TokenMinter
    let authentication: ServerAuthentication
    let profile: ProfileService
    let removal: AccountRemoval
    let writer: RecordWriter
    let audit: AuditTrail
}

extension RecordService {
    /// Elements one `entity.bulkCreate` takes: each may carry a password to hash.
    public static let bulkLimit = 100

    /// `entity`: the record (or the attributes `attributes` picks, or the one `attribute_name` names).
    public func entity(_ request: ServerRequest) async throws -> JSONValue {
        let user: User
        switch try await authentication.caller(request, for: .readRecords, userToken: true) {
        case .user(let own, _): user = own
        case .client: user = try await users.find(try EntitySelector(request.parameters, schema: catalog.schema))
        }
        return try await view(of: user, parameters: request.parameters)
    }

    /// The record as a call's `attribute_name` or `attributes` asks for it.
    func view(of user: User, parameters: [String: String]) async throws -> JSONValue {
        let encoder = EntityEncoder(schema: catalog.schema)
        if let name = parameters["attribute_name"], !name.isEmpty { return try encoder.attribute(name, of: user) }
        let record = encoder.record(
            user, profiles: try await identities.list(userID: user.id), passkeys: try await passkeys.list(userID: user.id))
        guard let picked = try AttributeSelection(parameters["attributes"]) else { return record }
        return picked.apply(to: record)
    }

    /// `entityType`: the schema in Janrain's shape, for any client that proves itself (Janrain's: every feature).
    public func entityType(_ request: ServerRequest) async throws -> JSONValue {
        _ = try await authentication.caller(request, for: .ownSettings)
        try Self.checkTypeName(request.parameters, required: true)
        return ["name": "user", "attr_defs": .array(EntityTypeDocument.attributes(of: catalog.schema))]
    }

    /// `entityType.list`: the one entity type (Janrain's: owner only).
    public func entityTypes(_ request: ServerRequest) async throws -> JSONValue {
        _ = try await authentication.caller(request, for: .administerClients)
        return ["user"]
    }

    /// `type_name`, when given (or when `required`), must be `user`: the service keeps one entity type.
    static func checkTypeName(_ parameters: [String: String], required: Bool = false) throws {
        switch parameters["type_name"] {
        case nil where required: throw CaptureError.missingArgument("type_name")
        case nil, "user"?: return
        case let other?: throw CaptureError.invalidArgument("type_name", "unknown entity type '\(other)' (this service has user)")
        }
    }

    /// A JSON parameter, parsed within the record limits; broken JSON is a 200-range error naming it.
    static func json(_ parameters: [String: String], _ name: String) throws -> JSONValue? {
        guard let raw = parameters[name] else { return nil }
        do {
            return try JSONParser.parse(raw, limits: EntityChangeRequest.jsonLimits)
        } catch {
            throw CaptureError.invalidArgument(name, "is not valid JSON: \(error.message)")
        }
    }
}
