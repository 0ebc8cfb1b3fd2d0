/// The parameter list of a PHC string (`m=65536,t=3,p=4`): names and whole numbers, each name once.
enum PHCFields {
    static func parse(_ text: some StringProtocol, names: Set<String>) throws(LegacyHashError) -> [String: Int] {
        var fields: [String: Int] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, names.contains(String(parts[0])), fields[String(parts[0])] == nil,
                parts[1].count <= 10, let value = Int(parts[1]), value >= 0
            else { throw .malformed("the parameters '\(text)' are not \(names.sorted().joined(separator: ", "))") }
            fields[String(parts[0])] = value
        }
        return fields
    }
}
