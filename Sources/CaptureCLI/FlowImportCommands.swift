import ArgumentParser
import CaptureCore
import CaptureJSON
import Foundation

extension FlowsCommand {
    /// `capturectl flows import FILE`: a Janrain flow document becomes `<settings>/flows/<name>.json`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Make a Janrain flow document (its fields, forms, screens, translations) a flow of this service.",
            discussion: """
                Writes <settings>/flows/<name>.json, checked with every other settings file; the service reads it at \
                its next start. Everything the service cannot honour is refused with the field and the reason, and \
                nothing is written then. A flow of that name that was imported before is replaced only with --replace; \
                a flow of Settings that was not imported is never replaced.
                """)

        /// A flow document is settings, not data: far below this.
        static let maxBytes = 8 << 20

        @Argument(help: "The Janrain flow document (JSON).") var file: String
        @Option(help: "The flow's name here (default: the document's `name`); pages name it in capture.flowName.")
        var name: String?
        @Flag(help: "Replace a flow of that name imported before.") var replace = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try options.refuseServer()
            let output = Output(json: options.json)
            try await Output.guarding {
                let directory = options.settingsDirectory
                let data = try read(file)
                let flowName = try name ?? Self.documentName(data)
                guard flowName.range(of: #"^[A-Za-z0-9_-]{1,64}$"#, options: .regularExpression) != nil else {
                    throw ValidationError("the flow's name must be 1-64 letters, digits, '-' or '_' (give one with --name)")
                }
                let schema = try EntitySchema.load(from: directory.appendingPathComponent("schema.json"))
                let flow: FlowDefinition
                do {
                    flow = try JanrainFlowImport.flow(named: flowName, from: data, schema: schema)
                } catch let refused as JanrainFlowImport.Refused {
                    Output.printError("refused: \(file) asks for what this service cannot do:\n\(refused.description)")
                    if output.json {
                        output.emit([
                            "ok": false,
                            "problems": .array(refused.problems.map { ["key": .string($0.key), "reason": .string($0.reason)] }),
                        ])
                    }
                    throw ExitCode(1)
                }
                try write(flow, named: flowName, into: directory)
                let imported = flow.imported
                output.message(
                    "imported flow \(flowName): \(imported?.fields.count ?? 0) fields, \(flow.forms.count) forms "
                        + "(\(flow.forms.joined(separator: ", "))); restart the service to serve it",
                    object: [
                        "ok": true, "flow": .string(flowName), "fields": .int(Int64(imported?.fields.count ?? 0)),
                        "forms": .array(flow.forms.map(JSONValue.string)),
                    ])
            }
        }

        func read(_ path: String) throws -> Data {
            let url = URL(fileURLWithPath: path)
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            guard size <= Self.maxBytes, let data = try? Data(contentsOf: url) else {
                throw ValidationError("cannot read \(path) (a flow document of at most \(Self.maxBytes >> 20) MiB)")
            }
            return data
        }

        static func documentName(_ data: Data) throws -> String {
            struct Named: Decodable { var name: String? }
            guard let name = (try? JSONDecoder().decode(Named.self, from: data))?.name, !name.isEmpty else {
                throw ValidationError("the document names no flow: give one with --name")
            }
            return name
        }

        /// Written beside the other flows only once the whole settings directory loads with it.
        func write(_ flow: FlowDefinition, named flowName: String, into directory: URL) throws {
            let flows = directory.appendingPathComponent("flows")
            let target = flows.appendingPathComponent("\(flowName).json")
            if FileManager.default.fileExists(atPath: target.path) {
                let existing = try FlowCatalog.load(directory: directory).flows[flowName]
                guard existing?.isImported == true else {
                    throw ValidationError("\(target.path) is a flow of Settings, not an imported one: choose another --name")
                }
                guard replace else { throw ValidationError("flow \(flowName) was imported before: --replace replaces it") }
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let staged = flows.appendingPathComponent(".\(flowName).json.importing")
            try encoder.encode(flow).write(to: staged)
            defer { try? FileManager.default.removeItem(at: staged) }
            let previous = try? Data(contentsOf: target)
            try FileManager.default.copyItem(at: staged, to: target, replacing: true)
            do {
                _ = try FlowCatalog.load(directory: directory)
            } catch {
                if let previous { try previous.write(to: target) } else { try? FileManager.default.removeItem(at: target) }
                throw error
            }
        }
    }

    /// `capturectl flows export NAME`: a flow of this service as a Janrain flow document.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a flow (imported or of Settings) as a Janrain flow document, which flows import reads back.")

        @Argument(help: "The flow's name (or one of its aliases).") var name: String
        @Option(help: "Write the document to this file instead of standard output.") var output: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try options.refuseServer()
            try await Output.guarding {
                let catalog = try FlowCatalog.load(directory: options.settingsDirectory)
                guard let flow = catalog.flow(named: name) else { throw ValidationError("no flow named \(name)") }
                let document = JanrainFlowExport.document(of: flow, catalog: catalog).encoded()
                if let output {
                    try document.write(to: URL(fileURLWithPath: output))
                } else {
                    FileHandle.standardOutput.write(document + Data("\n".utf8))
                }
            }
        }
    }
}

extension FileManager {
    fileprivate func copyItem(at source: URL, to target: URL, replacing: Bool) throws {
        if replacing, fileExists(atPath: target.path) { try removeItem(at: target) }
        try copyItem(at: source, to: target)
    }
}
