import CaptureJSON
import CaptureTestSupport
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Every reply a Swift test receives through `API` or `LiveServerProcess.get` is held against
/// `WebFlows/api/openapi.json` (`ReplyTally.check`, called from both): the operation the method and path name (HEAD
/// as GET, as the document says), a status it lists, a content type it lists, the headers it requires, and a JSON
/// body valid against its schema. Schemathesis checks only the replies to requests it generates, and cannot reach
/// most success paths (a deactivation needs a signed-in account); the contract tests reach nearly all, so their real
/// replies are checked too.
///
/// A request no operation answers (a 404 probe, a method a path does not take) is checked against what the service
/// promises for those (`UnknownRoute`): 404, with Janrain's error, problem details, or an HTML page.
struct OpenAPIReplyCheck: Sendable {
    /// One operation: its method, its path template's segments (nil where a parameter stands) and its responses.
    struct Operation: Sendable {
        let method: String
        let template: String
        let segments: [String?]
        let responses: [String: JSONValue]

        var name: String { "\(method) \(template)" }
        var literals: Int { segments.count { $0 != nil } }

        func matches(_ parts: [Substring]) -> Bool {
            parts.count == segments.count
                && zip(parts, segments).allSatisfy { part, segment in segment.map { part == $0 } ?? !part.isEmpty }
        }
    }

    /// What one reply came to.
    struct Outcome: Sendable {
        /// "METHOD /template", or `unrouted` when no operation answers the request.
        let operation: String
        let status: Int
        /// Whether a JSON body was checked against a schema (not only its status and headers).
        let bodyChecked: Bool
        let problems: [String]

        var key: String { "\(operation) \(status)" }
    }

    static let unrouted = "unrouted"
    /// What an unrouted request's body is held against, by media type (UnknownRoute's three styles).
    static let unroutedSchemas: [String: String?] = [
        "application/json": "#/components/schemas/CaptureError",
        "application/problem+json": "#/components/schemas/Problem",
        "text/html": nil,
    ]

    let schemas: JSONSchemaCheck
    let operations: [Operation]

    static let documentURL = TestWorld.repositoryRoot.appendingPathComponent("WebFlows/api/openapi.json")

    /// The repository's document, read once for the whole run.
    static let shared: Result<OpenAPIReplyCheck, DocumentError> = {
        guard let data = try? Data(contentsOf: documentURL) else {
            return .failure(DocumentError(problem: "\(documentURL.path) cannot be read"))
        }
        return Result { () throws(DocumentError) in try OpenAPIReplyCheck(document: data) }
    }()

    struct DocumentError: Error, Sendable, CustomStringConvertible {
        let problem: String
        var description: String { "the OpenAPI document: \(problem)" }
    }

    /// Deep enough for any reply this service writes; sizes are the service's own, never a stranger's.
    static let limits = JSONParser.Limits(
        maxInputBytes: .max, maxDepth: 64, maxValues: .max, maxStringBytes: .max, maxNumberBytes: 64)

    init(document data: Data) throws(DocumentError) {
        let root: JSONValue
        do { root = try JSONParser.parse(data, limits: Self.limits) } catch {
            throw DocumentError(problem: "not JSON (\(error.message) at byte \(error.offset))")
        }
        guard case .object(let members) = root, case .object(let paths)? = members["paths"] else {
            throw DocumentError(problem: "no paths")
        }
        schemas = JSONSchemaCheck(root: root)
        var operations: [Operation] = []
        for (template, item) in paths {
            guard case .object(let methods) = item else { throw DocumentError(problem: "\(template) is not a path item") }
            let segments: [String?] = template.split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.hasPrefix("{") && part.hasSuffix("}") ? nil : String(part)
            }
            // A parameter inside a segment ("{name}.json") would need a pattern; none is used, so none is read.
            if segments.contains(where: { $0?.contains("{") == true }) {
                throw DocumentError(problem: "\(template): a parameter is only read as a whole segment")
            }
            for (method, operation) in methods where Self.methods.contains(method) {
                guard case .object(let fields) = operation, case .object(let responses)? = fields["responses"] else {
                    throw DocumentError(problem: "\(method) \(template) has no responses")
                }
                operations.append(
                    Operation(method: method.uppercased(), template: template, segments: segments, responses: responses))
            }
        }
        self.operations = operations
    }

    /// The keys of a path item that are operations.
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The operation answering `method` on `path` (query and fragment dropped); among several templates, the one with
    /// the most literal segments, as the router prefers `/admin/v1/tokens/introspect` to `/admin/v1/tokens/{token}`.
    func operation(method: String, path: String) -> Operation? {
        let bare = path.prefix { $0 != "?" && $0 != "#" }
        let parts = bare.split(separator: "/", omittingEmptySubsequences: false)
        let wanted = method == "HEAD" ? "GET" : method
        return operations.filter { $0.method == wanted && $0.matches(parts) }.max { $0.literals < $1.literals }
    }

    func check(method: String, path: String, status: Int, headers: HTTPFields, body: [UInt8]) -> Outcome {
        guard let operation = operation(method: method, path: path) else {
            return checkUnrouted(method: method, status: status, headers: headers, body: body)
        }
        guard
            let response = operation.responses[String(status)] ?? operation.responses["\(status / 100)XX"]
                ?? operation.responses["default"]
        else {
            let listed = operation.responses.keys.sorted().joined(separator: ", ")
            return Outcome(
                operation: operation.name, status: status, bodyChecked: false,
                problems: ["status \(status) is not documented (the document lists \(listed)); body: \(Self.excerpt(body))"])
        }
        guard case .object(let fields)? = resolved(response) else {
            return Outcome(
                operation: operation.name, status: status, bodyChecked: false, problems: ["unresolved response \(response)"])
        }
        var problems = headerProblems(fields["headers"], headers)
        var bodyChecked = false
        // A HEAD reply has GET's headers and no body.
        if method != "HEAD", case .object(let content)? = fields["content"] {
            let mediaType = Self.mediaType(headers)
            if body.isEmpty {
                problems.append("the document gives a \(content.keys.sorted()) body, the reply has none")
            } else if let match = Self.documented(mediaType, in: content) {
                if Self.isJSON(match), case .object(let media)? = content[match] {
                    bodyChecked = true
                    problems += bodyProblems(body, against: media["schema"])
                }
            } else {
                problems.append("content type \(mediaType ?? "(none)") is not among the documented \(content.keys.sorted())")
            }
        }
        return Outcome(operation: operation.name, status: status, bodyChecked: bodyChecked, problems: problems)
    }

    private func checkUnrouted(method: String, status: Int, headers: HTTPFields, body: [UInt8]) -> Outcome {
        var problems: [String] = []
        if status != 404 { problems.append("no documented operation answers it, yet the status is \(status), not 404") }
        var bodyChecked = false
        let mediaType = Self.mediaType(headers)
        if method != "HEAD" {
            if let mediaType, let schema = Self.unroutedSchemas[mediaType] {
                if let schema {
                    bodyChecked = true
                    problems += bodyProblems(body, against: .object(["$ref": .string(schema)]))
                }
            } else {
                problems.append(
                    "an unrouted request's reply is \(mediaType ?? "untyped"), not \(Self.unroutedSchemas.keys.sorted())")
            }
        }
        return Outcome(operation: Self.unrouted, status: status, bodyChecked: bodyChecked, problems: problems)
    }

    private func bodyProblems(_ body: [UInt8], against schema: JSONValue?) -> [String] {
        let value: JSONValue
        do { value = try JSONParser.parse(body, limits: Self.limits) } catch {
            return ["the body is not JSON (\(error.message) at byte \(error.offset)): \(Self.excerpt(body))"]
        }
        guard let schema else { return [] }
        return schemas.problems(value, against: schema).map { "body \($0)" }
    }

    /// The documented headers: present when required, and each present one valid against its schema.
    private func headerProblems(_ documented: JSONValue?, _ headers: HTTPFields) -> [String] {
        guard case .object(let entries)? = documented else { return [] }
        var problems: [String] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard case .object(let header)? = resolved(entry), let field = HTTPField.Name(name) else {
                problems.append("header \(name): unresolved in the document")
                continue
            }
            guard let value = headers[field] else {
                if header["required"] == .bool(true) { problems.append("header \(name) is required and missing") }
                continue
            }
            if let schema = header["schema"] {
                problems += schemas.problems(.string(value), against: schema).map { "header \(name) \($0)" }
            }
        }
        return problems
    }

    /// A response or header object, following its `$ref` (`#/components/responses/…`).
    private func resolved(_ value: JSONValue) -> JSONValue? {
        if case .object(let fields) = value, let reference = fields["$ref"]?.stringValue { return schemas.resolve(reference) }
        return value
    }

    static func mediaType(_ headers: HTTPFields) -> String? {
        headers[.contentType].map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// The documented media type `mediaType` falls under (exactly, or by a `type/*` or `*/*` range).
    static func documented(_ mediaType: String?, in content: [String: JSONValue]) -> String? {
        guard let mediaType else { return nil }
        if content[mediaType] != nil { return mediaType }
        let type = mediaType.split(separator: "/").first.map(String.init) ?? mediaType
        return [type + "/*", "*/*"].first { content[$0] != nil }
    }

    static func isJSON(_ mediaType: String) -> Bool { mediaType == "application/json" || mediaType.hasSuffix("+json") }

    static func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        return body.count > 300 ? text + "…" : text
    }
}

/// Counts the replies the check saw, by operation and status: for the whole run (printed when the test process ends),
/// and for a test that wants to see what its own requests were checked against (`observing`).
final class ReplyTally: Sendable {
    private let counts = Mutex<[String: (replies: Int, bodies: Int)]>([:])

    /// Every reply of the run.
    static let run: ReplyTally = {
        let tally = ReplyTally()
        // The run's totals in the test output: how much of the document the contract tests reached.
        atexit { ReplyTally.run.printSummary() }
        return tally
    }()

    /// The tally of the task running, when a test set one.
    @TaskLocal static var observing: ReplyTally?

    func add(_ outcome: OpenAPIReplyCheck.Outcome) {
        counts.withLock { counts in
            let now = counts[outcome.key] ?? (0, 0)
            counts[outcome.key] = (now.replies + 1, now.bodies + (outcome.bodyChecked ? 1 : 0))
        }
    }

    /// Replies checked, and of those with a JSON body checked against a schema, per "METHOD /template status".
    var snapshot: [String: (replies: Int, bodies: Int)] { counts.withLock { $0 } }

    func printSummary() {
        let counts = snapshot
        guard !counts.isEmpty else { return }
        let operations = Set(counts.keys.map { $0.split(separator: " ").dropLast().joined(separator: " ") })
        let replies = counts.values.reduce(0) { $0 + $1.replies }
        let bodies = counts.values.reduce(0) { $0 + $1.bodies }
        let documented = Set((try? OpenAPIReplyCheck.shared.get())?.operations.map(\.name) ?? [])
        var line = "OpenAPI reply check: \(replies) replies (\(bodies) JSON bodies against their schemas), "
        line +=
            "\(operations.intersection(documented).count) of \(documented.count) operations, \(counts.count) operation statuses\n"
        // CAPTURE_REPLY_TALLY=1: each operation status's count, and the operations no test reached.
        if ProcessInfo.processInfo.environment["CAPTURE_REPLY_TALLY"] != nil {
            for (key, count) in counts.sorted(by: { $0.key < $1.key }) {
                line += "  \(key): \(count.replies) (\(count.bodies) bodies)\n"
            }
            line += "  not reached: \(documented.subtracting(operations).sorted())\n"
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Checks one reply, counts it, and fails the running test on each mismatch, naming request, status and problem.
    static func check(
        method: String, path: String, status: Int, headers: HTTPFields, body: [UInt8], sourceLocation: SourceLocation
    ) {
        switch OpenAPIReplyCheck.shared {
        case .failure(let error):
            Issue.record("\(error)", sourceLocation: sourceLocation)
        case .success(let check):
            let outcome = check.check(method: method, path: path, status: status, headers: headers, body: body)
            run.add(outcome)
            observing?.add(outcome)
            for problem in outcome.problems {
                let request = "\(method) \(path) (\(outcome.operation), \(status))"
                Issue.record(
                    "WebFlows/api/openapi.json does not match the reply to \(request): \(problem)", sourceLocation: sourceLocation
                )
            }
        }
    }
}
