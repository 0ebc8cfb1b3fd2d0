import CaptureTestSupport
import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// The documents that describe the package's shape name what the code declares: README's layout every target of
/// Package.swift, and docs/storage.md's introduction the newest migration step of each backend.
@Suite struct DocsMatchCodeTests {
    static let root = TestWorld.repositoryRoot

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The names Package.swift gives its targets: the `name: "…"` right after `.target(`, `.executableTarget(`,
    /// `.testTarget(`, `.systemLibrary(` (not products, dependencies or the package's own name).
    static func declaredTargets() throws -> [String] {
        let kinds = ["target(", "executableTarget(", "testTarget(", "systemLibrary(", "binaryTarget(", "macro(", "plugin("]
        let pieces = try text("Package.swift").components(separatedBy: "name: \"")
        var names: [String] = []
        for (before, after) in zip(pieces, pieces.dropFirst()) {
            let head = before.trimmingCharacters(in: .whitespacesAndNewlines)
            guard kinds.contains(where: { head.hasSuffix("." + $0) }) else { continue }
            names.append(String(after.prefix { $0 != "\"" }))
        }
        return names
    }

    /// The step identifiers (`"p<number>-…"`) in CapturePostgres' migration sources. `PostgresMigrations.steps` is
    /// internal to CapturePostgres, which this test target does not depend on, so its source is read instead.
    static func postgresSteps() throws -> [String] {
        let files = FileManager.default.enumerator(
            at: root.appendingPathComponent("Sources/CapturePostgres"), includingPropertiesForKeys: nil)
        var steps: [String] = []
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift", url.lastPathComponent.hasPrefix("PostgresMigrations") else { continue }
            for piece in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\"p").dropFirst() {
                let literal = piece.prefix { $0 != "\"" }
                let digits = literal.prefix { $0.isASCII && $0.isNumber }
                guard !digits.isEmpty, literal.dropFirst(digits.count).first == "-",
                    literal.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
                else { continue }
                steps.append("p" + String(literal))
            }
        }
        return steps
    }

    /// The number after a step's letter: 14 for `p14-client-pages`.
    static func number(_ step: String) -> Int {
        Int(step.dropFirst().prefix { $0.isASCII && $0.isNumber }) ?? 0
    }

    @Test func readmeLayoutNamesEveryTargetOfThePackage() throws {
        let targets = try Self.declaredTargets()
        #expect(targets.contains("CaptureCore") && targets.contains("capturectl"), "targets read: \(targets)")
        let readme = try Self.text("README.md")
        let afterHeading = readme.components(separatedBy: "## Layout\n").dropFirst().first ?? ""
        let layout = afterHeading.components(separatedBy: "\n## ").first ?? ""
        #expect(!layout.isEmpty, "README.md has a \"## Layout\" section")
        // Whole words only, so that `CaptureCoreTests` does not count as naming `CaptureCore`.
        let words = Set(
            layout.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }).map(String.init))
        let missing = targets.filter { !words.contains($0) }
        #expect(missing.isEmpty, "README's layout does not name these targets of Package.swift: \(missing)")
    }

    @Test func storageIntroductionNamesEachBackendsNewestMigrationStep() throws {
        let sqliteSteps = Migrations.migrator.migrations
        let sqlite = try #require(sqliteSteps.max { Self.number($0) < Self.number($1) })
        #expect(sqlite == sqliteSteps.last, "SQLite's steps are registered in the order of their numbers")
        let postgresSteps = try Self.postgresSteps()
        #expect(postgresSteps.contains("p1-initial"), "PostgreSQL's steps read from its sources: \(postgresSteps)")
        let postgres = try #require(postgresSteps.max { Self.number($0) < Self.number($1) })
        // The introduction: the title and the paragraphs before the first heading after it.
        let introduction = try Self.text("docs/storage.md").components(separatedBy: "\n#").first ?? ""
        #expect(introduction.contains("`\(sqlite)`"), "docs/storage.md's introduction names SQLite's newest step \(sqlite)")
        #expect(
            introduction.contains("`\(postgres)`"),
            "docs/storage.md's introduction names PostgreSQL's newest step \(postgres)")
    }
}
