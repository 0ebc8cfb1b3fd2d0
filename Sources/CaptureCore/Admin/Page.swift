/// A page of a list: at most `limit` items after skipping `offset`. Lists are bounded: `limit` is 1 to `maxLimit`.
public struct Page: Sendable, Equatable {
    public static let defaultLimit = 100
    public static let maxLimit = 1000

    public var limit: Int
    public var offset: Int

    public init(limit: Int = Page.defaultLimit, offset: Int = 0) {
        self.limit = limit
        self.offset = offset
    }

    /// A page from request parameters; a bad value is a refusal naming the parameter.
    public init(limit: String?, offset: String?) throws {
        self.init()
        if let limit, !limit.isEmpty {
            guard let value = Int(limit), (1...Self.maxLimit).contains(value) else {
                throw CaptureError.invalidArgument("limit", "must be a whole number from 1 to \(Self.maxLimit)")
            }
            self.limit = value
        }
        if let offset, !offset.isEmpty {
            guard let value = Int(offset), value >= 0 else {
                throw CaptureError.invalidArgument("offset", "must be a whole number, 0 or more")
            }
            self.offset = value
        }
    }

    /// The offset of the next page when this one came back full.
    public func next(after count: Int) -> Int? { count < limit ? nil : offset + limit }
}
