/// The comment lines of a plain ES5 script left empty, for the bundles (docs/adr/0070): the widget's files are written
/// to be read, and their comments are a third of their bytes. Only whole lines go: a line that starts with `//`, and
/// a block comment that starts a line, to its `*/` (code after the `*/` stays in place). Every line keeps its number,
/// so a stack trace's line within a module is the file's own; nothing inside a line of code is touched, and a script
/// line can only start inside a string through a trailing `\`, which the files do not use.
enum ScriptComments {
    static func blanked(_ text: String) -> String {
        var lines: [Substring] = []
        var inBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if inBlock {
                if let end = line.range(of: "*/") {
                    inBlock = false
                    let rest = line[end.upperBound...]
                    lines.append(
                        rest.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" })
                            ? ""
                            : Substring(String(repeating: " ", count: line.distance(from: line.startIndex, to: end.upperBound)))
                                + rest)
                } else {
                    lines.append("")
                }
            } else if trimmed.hasPrefix("//") {
                lines.append("")
            } else if trimmed.hasPrefix("/*") {
                if let end = trimmed.range(of: "*/", range: trimmed.index(trimmed.startIndex, offsetBy: 2)..<trimmed.endIndex) {
                    // A one-line block comment: gone when nothing follows it, else the line stays as it is.
                    lines.append(trimmed[end.upperBound...].allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) ? "" : line)
                } else {
                    inBlock = true
                    lines.append("")
                }
            } else {
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
