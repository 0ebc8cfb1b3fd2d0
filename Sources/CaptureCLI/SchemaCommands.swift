import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl schema …`
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Show the entity schema user records follow (Settings/schema.json).",
        subcommands: [Show.self])
}

extension SchemaCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Every attribute by path with its type and constraints, the service's own attributes first.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try options.refuseServer()
            let output = Output(json: options.json)
            try await Output.guarding {
                let schema = try FlowCatalog.load(directory: options.settingsDirectory).schema
                let service = EntitySchema.systemAttributes.sorted().filter { $0 != "password" }.map {
                    [$0, "service", "read-only"]
                }
                let rows = Self.rows(schema.attributes, prefix: "")
                output.list(
                    ["PATH", "TYPE", "CONSTRAINTS"], rows: service + rows.map { [$0.path, $0.type, $0.constraints] },
                    objects: rows.map {
                        ["path": .string($0.path), "type": .string($0.type), "constraints": .string($0.constraints)]
                    })
            }
        }

        static func rows(
            _ scope: [String: AttributeDefinition], prefix: String
        ) -> [(path: String, type: String, constraints: String)] {
            scope.values.sorted { $0.name < $1.name }.flatMap { definition in
                let path = prefix + definition.name
                let row = (path: path, type: definition.type.rawValue, constraints: constraints(of: definition))
                let inner = definition.type == .plural ? "\(path)#id." : "\(path)."
                return [row] + rows(definition.attributes, prefix: inner)
            }
        }

        static func constraints(of definition: AttributeDefinition) -> String {
            var parts: [String] = []
            if definition.required { parts.append("required") }
            if definition.unique { parts.append("unique") }
            if definition.readOnly { parts.append("read-only") }
            if let length = definition.length { parts.append("length \(definition.minLength ?? 0)–\(length)") }
            if definition.type == .string || definition.type == .email { parts.append("≤ \(definition.byteLimit) bytes") }
            if let format = definition.format { parts.append("format \(format.rawValue)") }
            if let pattern = definition.pattern { parts.append("pattern \(pattern)") }
            if let minimum = definition.minimum { parts.append("≥ \(number(minimum))") }
            if let maximum = definition.maximum { parts.append("≤ \(number(maximum))") }
            return parts.isEmpty ? "-" : parts.joined(separator: ", ")
        }

        static func number(_ value: Double) -> String {
            value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }
}
