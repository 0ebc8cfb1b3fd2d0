import CaptureJSON

extension JSONValue {
    /// An object's members (nil for any other value), for reading a payload in a test.
    var members: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
