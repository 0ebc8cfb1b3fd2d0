/// A settings problem, named by file, key and what is wrong, so start-up can stop with a clear message.
public struct SettingsError: Error, CustomStringConvertible, Equatable, Sendable {
    public let file: String
    public let key: String
    public let problem: String

    public init(file: String, key: String, problem: String) {
        self.file = file
        self.key = key
        self.problem = problem
    }

    public var description: String {
        "settings error in \(file): key '\(key)': \(problem)"
    }
}
