import ArgumentParser
import CaptureCore
import CaptureJSON
import Foundation

/// `capturectl migrate`: moving users here from another identity service.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move users here from a running Janrain (Akamai Identity Cloud) app.",
        subcommands: [MigrateJanrain.self])
}

/// `capturectl migrate janrain --from URL --client-id ID`: reads every record of the old app through `entity.find`
/// as Janrain advises for exports (sorted on `id`, `id > last`, batches) and imports each batch through the import's
/// one path (`AdminService.importRecords`); the rules are there, this command only pages, keeps its place and reports.
struct MigrateJanrain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "janrain",
        abstract: "Pull every record of a Janrain app (entity.find with an owner client) into this service.",
        discussion: """
            The secret comes from --client-secret-file or $CAPTURE_JANRAIN_CLIENT_SECRET, never from the command line. \
            The pull keeps its place in --state (the last id imported, and the uuids of records that failed): run \
            again, it resumes after the last batch, tries the failed records again, then reads what is new; \
            --restart starts from the first record. Records stored already are updated when the source's copy is \
            newer and left alone otherwise, so nothing is duplicated. --since DATE reads only records whose \
            lastUpdated is later (the days before the cutover). --plan compares the source's schema (entityType) \
            with Settings/schema.json and writes nothing.
            Exit codes: 0 every record imported, 1 some records failed (listed on stderr) or the source refused, 2 usage.
            """)

    @Option(help: ArgumentHelp("The app's Capture domain, https://<app>.janraincapture.com.", valueName: "url"))
    var from: String
    @Option(help: ArgumentHelp("An owner client of the app.", valueName: "id"))
    var clientID: String
    @Option(help: ArgumentHelp("A file holding the client's secret (else $CAPTURE_JANRAIN_CLIENT_SECRET).", valueName: "path"))
    var clientSecretFile: String?
    @Option(help: ArgumentHelp("Where the pull keeps its place (default: janrain-pull-<host>.json here).", valueName: "path"))
    var state: String?
    @Flag(help: "Forget the kept place and failures: start from the first record.")
    var restart = false
    @Option(
        help: ArgumentHelp(
            "Only records whose lastUpdated is later than this date (2026-01-31 or a Janrain date).", valueName: "date"))
    var since: String?
    @Flag(help: "Compare the source's schema with Settings/schema.json; write nothing.")
    var plan = false
    @Option(help: "Records per entity.find call and per write transaction.")
    var batchSize = 500
    @Flag(help: "Skip attributes the schema does not define instead of refusing the record.")
    var ignoreUnknown = false
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        guard (1...10_000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 10000") }
        if let since, CaptureDate.parse(since) == nil && CaptureDate.parse(since + " 00:00:00 +0000") == nil {
            throw ValidationError("--since must be a date like 2026-01-31 or 2026-01-31 12:00:00 +0000")
        }
    }

    func run() async throws {
        let secret = try readSecret()
        let source: JanrainSource
        do { source = try JanrainSource(base: from, clientID: clientID, secret: secret) } catch {
            throw ValidationError(error.description)
        }
        let output = Output(json: options.json)
        let definitions: [JSONValue]
        do { definitions = try await source.attributeDefinitions() } catch {
            Output.printError(error.description)
            throw ExitCode(1)
        }
        if plan {
            try report(SchemaComparison(source: definitions, schema: try options.loadConfiguration().1.schema), output)
            return
        }
        var reader = source
        let names = definitions.compactMap { definition -> String? in
            guard case .object(let members) = definition else { return nil }
            return members["name"]?.stringValue
        }
        reader.attributes = String(
            decoding: JSONValue.array(Array(Set(names + ["id", "uuid", "password", "profiles"])).sorted().map(JSONValue.string))
                .encodedBytes(), as: UTF8.self)
        let statePath = state ?? "janrain-pull-\(URLComponents(string: source.base)?.host ?? "source").json"
        let pullOptions = ImportOptions(format: .jsonl, ignoreUnknown: ignoreUnknown, batchSize: batchSize)
        try await options.withFeatures(creatingDatabase: true) { features, output in
            var pull = JanrainPull(
                source: reader, admin: features.admin, options: pullOptions, statePath: statePath,
                since: since.map(Self.janrainDate))
            try await pull.run(restart: restart)
            var text = pull.summary.text
            text += pull.checkpoint.failed.isEmpty ? "; nothing failed" : "; \(pull.checkpoint.failed.count) failed"
            text += "; last id \(since == nil ? pull.checkpoint.lastID : pull.checkpoint.sinceLastID)"
            var object = pull.summary.object
            object["failed"] = .array(pull.checkpoint.failed.map(JSONValue.string))
            object["last_id"] = .int(since == nil ? pull.checkpoint.lastID : pull.checkpoint.sinceLastID)
            output.message(text, object: .object(object))
            if !pull.checkpoint.failed.isEmpty { throw ExitCode(1) }
        }
    }

    /// The secret, from the file (its last line break dropped) or the environment; never an argument, which `ps`
    /// and shell histories show.
    private func readSecret() throws -> String {
        if let clientSecretFile {
            guard let data = FileManager.default.contents(atPath: clientSecretFile) else {
                throw ValidationError("cannot read --client-secret-file '\(clientSecretFile)'")
            }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw ValidationError("--client-secret-file '\(clientSecretFile)' is empty") }
            return text
        }
        guard let text = ProcessInfo.processInfo.environment["CAPTURE_JANRAIN_CLIENT_SECRET"], !text.isEmpty else {
            throw ValidationError("give --client-secret-file, or the secret in $CAPTURE_JANRAIN_CLIENT_SECRET")
        }
        return text
    }

    /// `--since` in Janrain's filter form: a bare date is its midnight, UTC.
    static func janrainDate(_ text: String) -> String {
        let date = CaptureDate.parse(text) ?? CaptureDate.parse(text + " 00:00:00 +0000") ?? Date(timeIntervalSince1970: 0)
        return CaptureDate.format(date)
    }

    private func report(_ comparison: SchemaComparison, _ output: Output) throws {
        let differences = comparison.differences
        let text =
            differences.isEmpty
            ? "the source's schema matches Settings/schema.json"
            : (["\(differences.count) differences between the source's schema and Settings/schema.json:"]
                + differences.map { "  " + $0.description }).joined(separator: "\n")
        output.message(
            text,
            object: [
                "differences": .array(
                    differences.map { difference in
                        [
                            "kind": .string(difference.kind.rawValue), "path": .string(difference.path),
                            "source_type": .optional(difference.sourceType), "local_type": .optional(difference.localType),
                        ]
                    })
            ])
    }
}
