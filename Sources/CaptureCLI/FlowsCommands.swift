import ArgumentParser
import CaptureCore
import CaptureJSON
import Foundation

/// `capturectl flows …`
struct FlowsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flows",
        abstract: "List the flow definitions in Settings, check the settings files, import and export Janrain flows.",
        subcommands: [List.self, Check.self, Import.self, Export.self])
}

extension FlowsCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the flows defined in <settings>/flows/ with their page and forms.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try options.refuseServer()
            let output = Output(json: options.json)
            try await Output.guarding {
                let catalog = try FlowCatalog.load(directory: options.settingsDirectory)
                let flows = catalog.flows.values.sorted { $0.name < $1.name }
                output.list(
                    ["NAME", "PAGE", "RESPONSE TYPE", "FORMS"],
                    rows: flows.map { [$0.name, $0.page, $0.responseType.rawValue, $0.forms.joined(separator: ",")] },
                    objects: flows.map {
                        [
                            "name": .string($0.name), "page": .string($0.page), "title": .string($0.title),
                            "response_type": .string($0.responseType.rawValue), "token_url": .string($0.tokenUrl),
                            "forms": .array($0.forms.map(JSONValue.string)),
                        ]
                    })
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check service.json, forms.json and flows/*.json; prints 'ok' or the first problem (exit 1).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try options.refuseServer()
            let output = Output(json: options.json)
            let directory = options.settingsDirectory
            do {
                _ = try ServiceSettings.load(file: directory.appendingPathComponent("service.json"))
                let catalog = try FlowCatalog.load(directory: directory)
                output.message("ok", object: ["ok": true, "flows": .int(Int64(catalog.flows.count))])
            } catch let error as SettingsError {
                Output.printError(error.description)
                if output.json { output.emit(["ok": false, "error": .string(error.description)]) }
                throw ExitCode(1)
            }
        }
    }
}
