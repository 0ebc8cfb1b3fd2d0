import CaptureJSON
import Foundation

extension RecordService {
    /// `entity.create`: a new record from `attributes`; its `id` and `uuid`.
    public func create(_ request: ServerRequest) async throws -> User {
        // Who calls is settled before the JSON is parsed; a creation token is used up by the attempt.
        let clientID = try await authentication.creator(request)
        try Self.checkTypeName(request.parameters)
        guard let attributes = try Self.json(request.parameters, "attributes") else {
            throw CaptureError.missingArgument("attributes")
        }
        return try await create(attributes, by: clientID)
    }

    /// `entity.bulkCreate`: each element of `all_attributes` created on its own; one refused does not sink the others.
    public func bulkCreate(_ request: ServerRequest) async throws -> [Result<User, CaptureError>] {
        guard case .client(let client) = try await authentication.caller(request, for: .writeRecords) else {
            throw CaptureError.notPermitted("records are created by clients")
        }
        try Self.checkTypeName(request.parameters)
        guard case .array(let elements)? = try Self.json(request.parameters, "all_attributes") else {
            throw request.parameters["all_attributes"] == nil
                ? CaptureError.missingArgument("all_attributes")
                : CaptureError.invalidArgument("all_attributes", "must be a JSON list of objects")
        }
        guard elements.count <= Self.bulkLimit else {
            throw CaptureError.invalidArgument("all_attributes", "takes at most \(Self.bulkLimit) records per call")
        }
        var results: [Result<User, CaptureError>] = []
        for element in elements {
            do {
                results.append(.success(try await create(element, by: client.clientID)))
            } catch {
                results.append(.failure(CaptureError(error)))
            }
        }
        return results
    }

    /// A record written by a client: every schema attribute (read-only ones too), a plain-text `password` hashed, a
    /// `{"type": "password-bcrypt", "value": …}` one kept through the import's rules, `emailVerified` as a date; the
    /// service's `uuid`, `id`, `created` and `lastUpdated` are its own.
    func create(_ attributes: JSONValue, by clientID: String) async throws -> User {
        guard case .object(var members) = attributes else {
            throw CaptureError.invalidArgument("attributes", "must be a JSON object")
        }
        try Self.refuseServiceAttributes(members)
        let now = time.now()
        var user = User(id: minter.identifier(), email: "", passwordHash: nil, createdAt: now)
        try await takeAccountAttributes(&members, into: &user)
        var document = user.document(schema: catalog.schema, asUser: false)
        try document.replace(at: EntityPath(steps: []), with: .object(members))
        user.apply(document)
        let consents: [Consents.Change]
        (user, consents) = writer.stampingConsents(user, previous: nil, clientID: clientID)
        do {
            user = try await users.insert(user)
        } catch CaptureError.emailAddressInUse {
            throw Self.addressTaken
        }
        await writer.recordConsentChanges(consents, of: user.id)
        try await audit.record("user.create", target: user.id, by: .client(clientID), outcome: AuditEntry.success, detail: nil)
        return user
    }

    /// `entity.update` (only what is given changes), `entity.replace` (what is not given becomes null) and
    /// `entity.delete` (the record, or the attribute `attribute_name` names). A user's token changes its own record
    /// as the profile feature does (step-up included).
    public func change(_ kind: EntityChangeRequest.Kind, _ request: ServerRequest) async throws -> User {
        let client: Client
        switch try await authentication.caller(request, for: .writeRecords, userToken: true) {
        case .user(let user, let token):
            let own = request.parameters.filter { !EntitySelector.parameters.contains($0.key) }
            return try await profile.changeEntity(
                kind, of: user, token: token, parameters: own, remoteAddress: request.remoteAddress)
        case .client(let caller): client = caller
        }
        try Self.checkTypeName(request.parameters)
        let previous = try await users.find(try EntitySelector(request.parameters, schema: catalog.schema))
        if kind == .delete && (request.parameters["attribute_name"] ?? "").isEmpty {
            try await audit.audited("user.delete", target: previous.id, by: .client(client.clientID)) {
                guard try await removal.erase(previous) else { throw CaptureError.recordNotFound("record") }
            }
            return previous
        }
        let change = try EntityChangeRequest(kind, parameters: request.parameters)
        var user = previous
        var value = change.value
        if change.path.isRoot, case .object(var members)? = value {
            try Self.refuseServiceAttributes(members)
            try await takeAccountAttributes(&members, into: &user)
            value = .object(members)
        }
        var document = user.document(schema: catalog.schema, asUser: false)
        switch (change.kind, value) {
        case (.update, let value?): try document.update(at: change.path, with: value)
        case (.replace, let value?): try document.replace(at: change.path, with: value)
        default: try document.delete(at: change.path)
        }
        user.apply(document)
        if user.email != previous.email && user.emailVerifiedAt == previous.emailVerifiedAt { user.emailVerifiedAt = nil }
        let consents: [Consents.Change]
        (user, consents) = writer.stampingConsents(user, previous: previous, clientID: client.clientID)
        user.updatedAt = time.now()
        do {
            try await users.update(user)
        } catch CaptureError.emailAddressInUse {
            throw Self.addressTaken
        }
        await writer.recordConsentChanges(consents, of: user.id)
        try await audit.record(
            "user.\(kind)", target: user.id, by: .client(client.clientID), outcome: AuditEntry.success,
            detail: change.path.isRoot ? nil : change.path.description)
        return user
    }

    /// Another record has the address: a unique value taken (Janrain's 360 range), as for any unique attribute.
    static let addressTaken = CaptureError.schemaViolation(SchemaViolation(.unique, "email", "this email is already taken"))

    /// The service's own attributes: set by the service, never by a call.
    static func refuseServiceAttributes(_ members: [String: JSONValue]) throws {
        for name in ["id", "uuid", "created", "lastUpdated", "lastLogin", "profiles", "passkeys"] where members[name] != nil {
            throw CaptureError.invalidArgument("attributes", "\(name) is the service's and cannot be written")
        }
    }

    /// Takes `password` and `emailVerified` out of `members` into the account.
    func takeAccountAttributes(_ members: inout [String: JSONValue], into user: inout User) async throws {
        switch members.removeValue(forKey: "password") {
        case nil: break
        case .string(let plain)?:
            guard !plain.isEmpty else { throw CaptureError.invalidArgument("password", "must not be empty") }
            user.passwordHash = await hasher.hash(plain)
        case let hashed?:
            do { user.passwordHash = try ImportedPasswordHash.hash(from: hashed) } catch {
                throw CaptureError.schemaViolation(error)
            }
        }
        if let verified = members.removeValue(forKey: "emailVerified") {
            do { user.emailVerifiedAt = try ImportRecord.date(verified, "emailVerified") } catch {
                throw CaptureError.schemaViolation(error)
            }
        }
    }
}
