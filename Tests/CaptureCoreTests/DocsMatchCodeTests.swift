import CaptureTestSupport
import Foundation
import GRDB
import Testing

@testable import CaptureStore

/// The documents that describe the package's shape name what the code declares: README's layout every target of
/// Package.swift, and docs/storage.md's introduction the newest migration step of each backend. The decision records
/// stay short records, each listed in their index, and docs/benchmarks.md stays a page of the latest figures.
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

    /// A file's lines as `wc -l` counts them: the last line's newline ends it, it does not start another.
    static func lineCount(_ text: String) -> Int {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines.count
    }

    /// Every decision record (`docs/adr/NNNN-title.md`) has at most 40 lines and is linked from docs/adr/README.md;
    /// docs/benchmarks.md has at most 200 (issue 50: short records of today's design, figures in one short page).
    @Test func decisionRecordsAreShortAndListedAndBenchmarksFitAPage() throws {
        #expect(Self.lineCount("a\nb\n") == 2 && Self.lineCount("a\nb") == 2 && Self.lineCount("") == 0)
        let folder = Self.root.appendingPathComponent("docs/adr")
        // README.md is the index, not a record: only `NNNN-title.md` files are records.
        let records = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".md") && $0.first.map { $0.isASCII && $0.isNumber } == true }
            .sorted()
        #expect(records.count >= 70, "decision records read from docs/adr: \(records)")
        let index = try Self.text("docs/adr/README.md")
        for record in records {
            let lines = Self.lineCount(try Self.text("docs/adr/" + record))
            #expect(lines <= 40, "docs/adr/\(record) has \(lines) lines; a decision record has at most 40")
            let listed = index.contains("(\(record))")
            #expect(listed, "docs/adr/README.md does not link docs/adr/\(record)")
        }
        let benchmarks = Self.lineCount(try Self.text("docs/benchmarks.md"))
        #expect(benchmarks <= 200, "docs/benchmarks.md has \(benchmarks) lines; it holds at most 200")
    }
}
