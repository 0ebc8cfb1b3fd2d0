import CaptureCore
import CaptureJSON
import Hummingbird

/// Janrain's server-to-server API for customers' backends (`entity*`, `entityType*`): read the call, let one
/// feature answer it, write Janrain's reply. Who may call is decided by `ServerAuthentication` in Core.
struct ServerAPIController {
    let records: RecordService
    let access: AccessIssuing
    let profile: ProfileService
    let settings: ServiceSettings
    let proxies: TrustedProxies

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post("/entity", use: entity)
        router.post("/entity.find", use: find)
        router.post("/entity.count", use: count)
        router.post("/entity.create", use: create)
        router.post("/entity.bulkCreate", use: bulkCreate)
        router.post("/entity.update", use: change(.update))
        router.post("/entity.replace", use: change(.replace))
        router.post("/entity.delete", use: change(.delete))
        router.post("/entityType", use: entityType)
        router.post("/entityType.list", use: entityTypes)
        for name in Self.schemaChanges { router.post(RouterPath("/\(name)"), use: schemaChange) }
        router.post("/access/getAccessToken", use: accessToken)
        router.post("/access/getAuthorizationCode", use: authorizationCode)
        router.post("/access/getCreationToken", use: creationToken)
    }

    /// Every call may name the entity type; the selectors name a record.
    static let common: Set<String> = ["type_name"]
    static let reading = common.union(EntitySelector.parameters).union(["attributes", "attribute_name"])
    static let writing = common.union(EntitySelector.parameters).union(EntityChangeRequest.parameters)

    private func read(
        _ request: Request, _ context: CaptureRequestContext, _ allowed: Set<String>
    ) async throws
        -> ServerRequest
    {
        try await ServerRequests.read(
            request, context: context, proxies: proxies, limit: settings.maxBodyBytes, allowed: allowed)
    }

    @Sendable func entity(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let call = try await read(request, context, Self.reading)
        // A user's token reading its whole record: written from the stored text in one lookup (the SDKs' hot path).
        if case .accessToken(let token) = call.credentials, call.parameters["attributes"] == nil {
            return Reply.ok(
                result: try await profile.entityResultJSON(accessToken: token, attributeName: call.parameters["attribute_name"]))
        }
        return Reply.ok(result: try await records.entity(call))
    }

    static let finding = common.union([
        "filter", "attributes", "sort_on", "max_results", "first_result", "show_total_count", "timeout",
    ])

    @Sendable func find(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let found = try await records.find(try await read(request, context, Self.finding))
        // The records' JSON is written already: the reply is put around it.
        var bytes = Array(#"{"result_count":\#(found.results.count),"results":["#.utf8)
        bytes.reserveCapacity(found.results.reduce(64) { $0 + $1.count + 1 })
        for (index, record) in found.results.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: record)
        }
        bytes.append(UInt8(ascii: "]"))
        if let total = found.totalCount { bytes.append(contentsOf: #","total_count":\#(total)"#.utf8) }
        bytes.append(contentsOf: #","stat":"ok"}"#.utf8)
        return Reply.json(bytes: bytes)
    }

    @Sendable func count(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let total = try await records.count(try await read(request, context, Self.common.union(["filter", "timeout"])))
        return Reply.ok(["total_count": .int(Int64(total))])
    }

    @Sendable func create(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let user = try await records.create(try await read(request, context, Self.common.union(["attributes"])))
        return Reply.ok(["id": .int(user.number ?? 0), "uuid": .string(user.id)])
    }

    @Sendable func bulkCreate(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let results = try await records.bulkCreate(try await read(request, context, Self.common.union(["all_attributes"])))
        return Reply.ok([
            "uuid_results": .array(results.map { result in (try? result.get()).map { .string($0.id) } ?? Self.error(result) }),
            "results": .array(results.map { result in (try? result.get()).map { .int($0.number ?? 0) } ?? Self.error(result) }),
        ])
    }

    /// One refused element of a bulk call, in Janrain's error shape.
    private static func error(_ result: Result<User, CaptureError>) -> JSONValue {
        guard case .failure(let error) = result else { return .null }
        return Reply.captureErrorBody(error)
    }

    func change(_ kind: EntityChangeRequest.Kind) -> @Sendable (Request, CaptureRequestContext) async throws -> Response {
        { request, context in
            let call = try await read(request, context, Self.writing)
            let user = try await records.change(kind, call)
            // A whole record deleted has nothing left to show.
            if kind == .delete && (call.parameters["attribute_name"] ?? "").isEmpty { return Reply.ok() }
            return Reply.ok(["result": try await profile.record(of: user)])
        }
    }

    /// Janrain's calls that change the schema: here the schema is a file, so each answers how to change it.
    static let schemaChanges = [
        "entityType.create", "entityType.delete", "entityType.addAttribute", "entityType.removeAttribute",
        "entityType.setAttributeConstraints", "entityType.setAttributeDescription", "entityType.addRule",
        "entityType.removeRule", "entityType.rules",
    ]

    @Sendable func schemaChange(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        throw CaptureError.notPermitted(
            "the schema is Settings/schema.json here: change the attribute there and restart the service "
                + "(no migration is needed; docs/janrain-migration.md, \"Your backends\")")
    }

    @Sendable func entityType(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        Reply.ok(["schema": try await records.entityType(try await read(request, context, Self.common))])
    }

    @Sendable func entityTypes(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        Reply.ok(["results": try await records.entityTypes(try await read(request, context, Self.common))])
    }

    static let issuing = common.union(EntitySelector.parameters).union(["for_client_id"])

    @Sendable func accessToken(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let grant = try await access.accessToken(try await read(request, context, Self.issuing))
        return Reply.ok(["accessToken": .string(grant.accessToken), "expires_in": .int(Int64(grant.expiresIn))])
    }

    @Sendable func authorizationCode(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let code = try await access.authorizationCode(try await read(request, context, Self.issuing.union(["redirect_uri"])))
        return Reply.ok(["authorizationCode": .string(code)])
    }

    @Sendable func creationToken(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let token = try await access.creationToken(
            try await read(request, context, Self.common.union(["for_client_id", "lifetime"])))
        return Reply.ok(["creation_token": .string(token)])
    }
}
