import ArgumentParser
import CaptureCore
import CaptureJSON
import Foundation

extension UserCommand {
    /// `capturectl user import FILE`: the rules are `AdminService.importUsers`; this reads options and reports.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import users from a Janrain export (JSON lines, a JSON array or entity.find reply, or CSV).",
            discussion: """
                Each record is imported whole or refused whole, with its line and Janrain's error (on stderr, or as \
                JSON lines in --rejects). Records are taken as Janrain's entity and entity.find return them: a \
                .json file may hold one array of records or a saved reply ({"stat":"ok","results":[...]}). A uuid \
                stored already is updated when the record's lastUpdated is later, else left unchanged, so an import \
                can run again; social profiles of providers configured here become linked accounts (others are \
                counted, not kept). Records are checked against Settings/schema.json; uuid, id, created, \
                lastUpdated, lastLogin and emailVerified are kept; password is a bcrypt hash ($2a$, $2b$, $2y$), a \
                crypt, phpass or PHC string ($1$, $5$, $6$, $P$, $argon2id$, $scrypt$, $pbkdf2-sha256$…), Janrain's \
                {"type":"password-…","value":…,"salt":…} in any of its formats (docs/janrain-migration.md), or absent; \
                a format other than bcrypt becomes bcrypt at the user's first sign-in. In CSV, the header names attributes \
                (primaryAddress.city for an object member) and a plural is one cell of JSON.
                Exit codes: 0 every record imported, 1 some refused (or the file cannot be read), 2 usage.
                """)

        @Argument(help: ArgumentHelp("The export file.", valueName: "file"))
        var file: String
        @Option(help: ArgumentHelp("jsonl or csv (default: from the file's extension).", valueName: "format"))
        var format: String?
        @Flag(help: "Skip attributes (and CSV columns) the schema does not define instead of refusing the record.")
        var ignoreUnknown = false
        @Option(help: ArgumentHelp("Write refused records as JSON lines to this file instead of stderr.", valueName: "path"))
        var rejects: String?
        @Option(help: "Records per write transaction.")
        var batchSize = 1000
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard batchSize > 0 else { throw ValidationError("--batch-size must be above 0") }
            _ = try importFormat()
        }

        func importFormat() throws -> ImportFormat {
            if let format {
                guard let known = ImportFormat(rawValue: format.lowercased()) else {
                    throw ValidationError("--format must be jsonl or csv")
                }
                return known
            }
            guard let implied = ImportFormat(fileName: file) else {
                throw ValidationError("cannot tell the format of '\(file)' from its extension: give --format jsonl or csv")
            }
            return implied
        }

        func run() async throws {
            let url = URL(fileURLWithPath: file)
            let importOptions = ImportOptions(format: try importFormat(), ignoreUnknown: ignoreUnknown, batchSize: batchSize)
            // A file that cannot be read must not leave a new, empty database behind.
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                Output.printError("cannot read '\(file)': no such file, or not readable")
                throw ExitCode(1)
            }
            try await options.withFeatures(creatingDatabase: true) { features, output in
                let sink = try RejectSink(path: rejects)
                let progress = ProgressPrinter(label: "records")
                let summary = try await features.admin.importUsers(
                    from: url, options: importOptions, progress: { progress.update($0.read) }, refused: { sink.write($0) })
                progress.finish(summary.read)
                sink.close()
                output.message(summary.text, object: .object(summary.object))
                if summary.refused > 0 { throw ExitCode(1) }
            }
        }
    }
}

extension ImportSummary {
    /// The summary line: counts that are 0 beyond read / imported / refused are left out.
    var text: String {
        var text = "read \(read), imported \(imported), refused \(refused)"
        if updated > 0 || unchanged > 0 { text += " (created \(created), updated \(updated), unchanged \(unchanged))" }
        if renumbered > 0 { text += " (\(renumbered) kept their uuid but got a new numeric id)" }
        if profilesLinked > 0 || profilesKept > 0 || profilesNotLinked > 0 {
            text +=
                "; social profiles: \(profilesLinked) linked, \(profilesKept) kept for providers not configured here, "
                + "\(profilesNotLinked) not kept (no account named, or linked to someone else)"
        }
        return text
    }

    var object: [String: JSONValue] {
        [
            "read": .int(Int64(read)), "imported": .int(Int64(imported)), "created": .int(Int64(created)),
            "updated": .int(Int64(updated)), "unchanged": .int(Int64(unchanged)), "refused": .int(Int64(refused)),
            "renumbered": .int(Int64(renumbered)), "profiles_linked": .int(Int64(profilesLinked)),
            "profiles_kept": .int(Int64(profilesKept)), "profiles_not_linked": .int(Int64(profilesNotLinked)),
        ]
    }
}

/// Where refusals go: a line each on stderr, or a JSON object per line in the `--rejects` file.
struct RejectSink {
    let handle: FileHandle
    let asJSON: Bool

    init(path: String?) throws {
        guard let path else {
            handle = .standardError
            asJSON = false
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path)
        else { throw ImportFileError("cannot write the rejects file '\(path)'") }
        self.handle = handle
        asJSON = true
    }

    func write(_ refusal: ImportRefusal) {
        let text: String
        if asJSON {
            let object: JSONValue = [
                "line": .int(Int64(refusal.line)), "code": .int(Int64(refusal.code)), "error": .string(refusal.error),
                "attribute": .optional(refusal.attribute), "message": .string(refusal.message),
                "uuid": .optional(refusal.uuid),
            ]
            text = String(decoding: object.encoded(), as: UTF8.self) + "\n"
        } else {
            let attribute = refusal.attribute.map { " (\($0))" } ?? ""
            text = "line \(refusal.line): \(refusal.code) \(refusal.error)\(attribute): \(refusal.message)\n"
        }
        handle.write(Data(text.utf8))
    }

    func close() {
        if asJSON { try? handle.close() }
    }
}
