import CaptureJSON
import Foundation

/// Janrain's record calls for customers' backends (`entity`, `entity.find`, `entity.count`, `entity.create`,
/// `entity.bulkCreate`, `entity.update`, `entity.replace`, `entity.delete`, `entityType`, `entityType.list`). A
/// client's call names a record by a selector and writes as an operator (read-only attributes included); a user's
/// access token reaches only its own record, through the profile feature, and a selector beside it is ignored.
/// Records written here are the records everything else reads: the same schema checks, stamps, audit rows.
///
/// A class, unlike the other features: a backend's reads are the hot path here, and an async call on a struct of
/// this size copies it (and retains everything it holds) per call — 11 % of `entity.find`'s profile.
public final class RecordService: Sendable {
    let users: any UserRepository
    let records: any RecordReads
    let hasher: any PasswordHasher
    let catalog: FlowCatalog
    let time: any TimeSource
    let minter: TokenMinter
    let authentication: ServerAuthentication
    let profile: ProfileService
    let removal: AccountRemoval
    let writer: RecordWriter
    let audit: AuditTrail

    init(
        users: any UserRepository, records: any RecordReads, hasher: any PasswordHasher, catalog: FlowCatalog,
        time: any TimeSource, minter: TokenMinter, authentication: ServerAuthentication, profile: ProfileService,
        removal: AccountRemoval, writer: RecordWriter, audit: AuditTrail
    ) {
        self.users = users
        self.records = records
        self.hasher = hasher
        self.catalog = catalog
        self.time = time
        self.minter = minter
        self.authentication = authentication
        self.profile = profile
        self.removal = removal
        self.writer = writer
        self.audit = audit
    }
}

extension RecordService {
    /// Elements one `entity.bulkCreate` takes: each may carry a password to hash.
    public static let bulkLimit = 100

    /// `entity`: the record's JSON (or the attributes `attributes` picks, or the one `attribute_name` names).
    public func entity(_ request: ServerRequest) async throws -> [UInt8] {
        let selector: EntitySelector
        let caller = try await authentication.caller(request, for: .readRecords, userToken: true)
        switch caller {
        case .user(let own, _): selector = .uuid(own.id)
        case .client: selector = try EntitySelector(request.parameters, schema: catalog.schema)
        }
        guard let stored = try await records.record(selector) else { throw CaptureError.recordNotFound("record") }
        return try view(
            of: stored, parameters: request.parameters, selection: try AttributeSelection(request.parameters["attributes"]),
            showsHash: Self.showsHash(caller))
    }

    /// Only an owner client sees a record's password hash, and only when its `attributes` name `password`: a
    /// migration's pull (`capturectl migrate janrain`) moves the hash as Janrain's `{"type": "password-bcrypt",
    /// "value": …}` so that nobody has to reset; no other caller, and no whole-record read, ever carries it.
    /// A password hash as an owner reads it, in a form `user import` reads back: bcrypt as Janrain's
    /// `password-bcrypt` object, an imported hash not yet migrated in its tagged form (`$legacy$<format>$…`), nothing
    /// for a hash never run.
    static func exported(hash: String?) -> JSONValue {
        guard let hash else { return .null }
        switch StoredPasswordHash.format(of: hash) {
        case .bcrypt: return ["type": "password-bcrypt", "value": .string(hash)]
        case .legacy: return .string(hash)
        case .none, .unusable: return .null
        }
    }

    static func showsHash(_ caller: ServerCaller) -> Bool {
        if case .client(let client) = caller { return client.features.contains(.owner) }
        return false
    }

    /// The record as a call's `attribute_name` or `attributes` asks for it; the whole record is written from its stored
    /// text (`EntityEncoder.write`), as `/entity` writes a token's.
    func view(
        of stored: StoredRecord, parameters: [String: String], selection: AttributeSelection?, showsHash: Bool = false
    ) throws -> [UInt8] {
        let encoder = EntityEncoder(schema: catalog.schema)
        if let name = parameters["attribute_name"], !name.isEmpty {
            return try encoder.attribute(name, of: stored.parsedUser).encodedBytes()
        }
        if let selection {
            let record = encoder.record(stored.parsedUser, profiles: stored.profiles, passkeys: stored.passkeys)
            var picked = selection.apply(to: record)
            if showsHash, selection.paths.contains(["password"]), case .object(var members) = picked {
                members["password"] = Self.exported(hash: stored.user.passwordHash)
                picked = .object(members)
            }
            return picked.encodedBytes()
        }
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        encoder.write(
            stored.user, storedProfile: stored.storedProfile, profiles: stored.profiles, passkeys: stored.passkeys,
            to: &output)
        return output
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
