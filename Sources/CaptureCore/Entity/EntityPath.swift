/// A place in the record, as the SDKs and Janrain's API write it: `/primaryAddress/city` (jump.ios, jump.android),
/// `primaryAddress.city` (Janrain's `attribute_name`), a plural element by id `photos#3` or `/photos#3/value`.
/// The empty path (`""` or `/`) is the whole record.
public struct EntityPath: Sendable, Equatable, CustomStringConvertible {
    public struct Step: Sendable, Equatable {
        public var name: String
        /// The id of one element of a plural.
        public var element: Int64?

        public init(name: String, element: Int64? = nil) {
            self.name = name
            self.element = element
        }
    }

    public var steps: [Step]

    public init(steps: [Step]) { self.steps = steps }

    /// Deeper than any schema this service accepts (`EntitySchema.maxDepth`).
    static let maxSteps = 8

    public init(parsing text: String, argument: String = "attribute_name") throws(CaptureError) {
        let separator: Character = text.contains("/") ? "/" : "."
        let parts = text.split(separator: separator, omittingEmptySubsequences: false)
        var steps: [Step] = []
        for (index, part) in parts.enumerated() {
            // One leading separator (`/name`) and one trailing (`/name/`) are allowed; an empty step elsewhere is not.
            if part.isEmpty && (index == 0 || index == parts.count - 1) { continue }
            let pieces = part.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pieces[0])
            guard Self.isName(name) else {
                throw .invalidArgument(argument, "'\(text)' is not an attribute path (like primaryAddress.city or /photos#3)")
            }
            var step = Step(name: name)
            if pieces.count == 2 {
                guard let id = Int64(pieces[1]), id > 0, pieces[1].allSatisfy(\.isASCII) else {
                    throw .invalidArgument(argument, "'\(text)': a plural element is named by its id, like photos#3")
                }
                step.element = id
            }
            steps.append(step)
        }
        guard steps.count <= Self.maxSteps else { throw .invalidArgument(argument, "'\(text)' is nested too deeply") }
        self.steps = steps
    }

    public var isRoot: Bool { steps.isEmpty }

    /// The dot form, as replies and error messages name attributes.
    public var description: String {
        steps.map { step in step.element.map { "\(step.name)#\($0)" } ?? step.name }.joined(separator: ".")
    }

    public func appending(_ name: String, element: Int64? = nil) -> EntityPath {
        EntityPath(steps: steps + [Step(name: name, element: element)])
    }

    static func isName(_ text: String) -> Bool {
        guard let first = text.utf8.first, text.utf8.count <= 64 else { return false }
        let isLetter = { (byte: UInt8) in (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) }
        return isLetter(first) && text.utf8.allSatisfy { isLetter($0) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }
}
