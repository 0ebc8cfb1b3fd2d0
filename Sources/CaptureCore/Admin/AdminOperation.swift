/// How the admin API serves an operation.
public enum AdminMethod: String, Sendable {
    case get = "GET", post = "POST", patch = "PATCH", delete = "DELETE"
}

/// One operator's verb, in one place: where the admin API serves it, what it takes (`AdminCall` both ways) and
/// answers (an admin view), the audit row it writes, and the use case it runs. The database console, the remote
/// console, the admin routes and capturectl are all driven by these values (`AdminOperations`).
public struct AdminOperation<Input: Sendable, Output: Codable & Sendable>: Sendable {
    public let method: AdminMethod
    /// The path under `/admin/v1`, with `:name` for each reference.
    public let path: String
    /// The query parameters (reads) or body members (changes) the call takes; a call with none reads no body.
    public let fields: Set<String>
    /// The status of a success.
    public let status: Int
    let read: @Sendable (AdminCall) throws -> Input
    let write: @Sendable (Input) -> AdminCall
    /// The audit row of an operation that changes something: its action and target from the input. The console
    /// adds the outcome (and `detail` of a success). Nil for reads, and for an operation that writes its own row.
    let audit: (@Sendable (Input) -> (action: String, target: String))?
    let detail: @Sendable (Output) -> String?
    let run: @Sendable (CaptureFeatures, Input, AuditActor) async throws -> Output

    init(
        _ method: AdminMethod, _ path: String, fields: Set<String> = [], status: Int = 200,
        read: @escaping @Sendable (AdminCall) throws -> Input, write: @escaping @Sendable (Input) -> AdminCall,
        audit: (@Sendable (Input) -> (action: String, target: String))? = nil,
        detail: @escaping @Sendable (Output) -> String? = { _ in nil },
        run: @escaping @Sendable (CaptureFeatures, Input, AuditActor) async throws -> Output
    ) {
        self.method = method
        self.path = path
        self.fields = fields
        self.status = status
        self.read = read
        self.write = write
        self.audit = audit
        self.detail = detail
        self.run = run
    }

    /// The references `path` names (`:token`, `:user`, `:client`).
    public var references: [String] {
        path.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
    }

    /// The input of a call the admin API received.
    public func input(_ call: AdminCall) throws -> Input { try read(call) }

    /// The call that carries `input` to the admin API.
    public func call(_ input: Input) -> AdminCall { write(input) }

    /// Runs the operation on the database as `actor`, writing its audit row.
    public func perform(_ input: Input, on features: CaptureFeatures, as actor: AuditActor) async throws -> Output {
        guard let audit else { return try await run(features, input, actor) }
        let (action, target) = audit(input)
        return try await features.audit.audited(action, target: target, by: actor, detail: detail) {
            try await run(features, input, actor)
        }
    }
}

/// An operation whose types are not known where it is used: what the admin routes need to serve it.
public protocol AdminRoute: Sendable {
    var method: AdminMethod { get }
    var path: String { get }
    var fields: Set<String> { get }
    var status: Int { get }
    var references: [String] { get }
    /// Reads the call, runs the operation through `console`, and answers its view.
    func answer(_ call: AdminCall, console: any AdminConsole) async throws -> any Encodable & Sendable
}

extension AdminOperation: AdminRoute {
    public func answer(_ call: AdminCall, console: any AdminConsole) async throws -> any Encodable & Sendable {
        try await console.perform(self, try read(call))
    }
}
