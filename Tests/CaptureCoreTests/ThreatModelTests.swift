import CaptureTestSupport
import Foundation
import Testing

/// docs/threat-model.md maps each threat to the tests that guard it; a renamed or deleted test must not leave a
/// threat pointing at nothing.
@Suite struct ThreatModelTests {
    static let root = TestWorld.repositoryRoot

    /// The identifiers in backticks on the document's `Tests:` lines (and their continuation lines).
    static func namedTests() throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/threat-model.md"), encoding: .utf8)
        var names: [String] = []
        var inTests = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Tests:") { inTests = true } else if line.isEmpty || line.hasPrefix("#") { inTests = false }
            guard inTests else { continue }
            names += line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element)
            }
        }
        return names
    }

    /// Every Swift and pytest test function name under Tests/.
    static func definedTests() throws -> Set<String> {
        var defined = Set<String>()
        let files = FileManager.default.enumerator(at: root.appendingPathComponent("Tests"), includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" || url.pathExtension == "py" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let keyword = url.pathExtension == "swift" ? "func " : "def "
            for line in text.split(separator: "\n") {
                guard let range = line.range(of: keyword) else { continue }
                let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if !name.isEmpty { defined.insert(String(name)) }
            }
        }
        return defined
    }

    @Test func everyTestNamedInTheThreatModelExists() throws {
        let named = try Self.namedTests()
        #expect(named.count >= 30, "the document names the tests that guard each threat")
        let defined = try Self.definedTests()
        let missing = named.filter { !defined.contains($0) }
        #expect(missing.isEmpty, "docs/threat-model.md names tests that do not exist: \(missing)")
    }

    @Test func everyThreatTheIssueListsHasASection() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/threat-model.md"), encoding: .utf8)
        for threat in [
            "Token theft through custom-scheme interception", "XSS in the page", "CSRF and cross-origin form posts",
            "Open redirects", "Credential stuffing and targeted lockout", "User enumeration", "Bridge origin spoofing",
            "Database file theft", "Request-cost exhaustion", "Slow clients",
        ] {
            let section = text.components(separatedBy: "## \(threat)\n").dropFirst().first
            #expect(section?.components(separatedBy: "\n## ").first?.contains("Tests: `") == true, "\(threat) names its tests")
        }
    }
}

/// docs/janrain-compatibility.md names, per SDK call, the tests that hold it; they must exist.
@Suite struct CompatibilityTableTests {
    @Test func everyTestNamedInTheCompatibilityTableExists() throws {
        let text = try String(
            contentsOf: ThreatModelTests.root.appendingPathComponent("docs/janrain-compatibility.md"), encoding: .utf8)
        // The table's rows: every line starting with "|" after the header and its |---| line.
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("|") }.dropFirst(2)
        #expect(rows.count >= 8)
        let defined = try ThreatModelTests.definedTests()
        for row in rows {
            let testsColumn = row.split(separator: "|", omittingEmptySubsequences: false).dropLast().last ?? ""
            let names = testsColumn.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            #expect(!names.isEmpty, "a row without tests: \(row.prefix(60))")
            for name in names { #expect(defined.contains(name), "docs/janrain-compatibility.md names \(name)") }
        }
    }
}
