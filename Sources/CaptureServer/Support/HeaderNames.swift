import HTTPTypes

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let pragma = HTTPField.Name("Pragma")!
    static let forwarded = HTTPField.Name("Forwarded")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}

extension HTTPFields {
    /// `self[name]` without a new string when the field comes once, as it nearly always does: HTTPTypes' subscript
    /// joins the values of every field of the name through a lazy map on each read, about 0.7 µs per header present.
    /// Repeated fields are joined as the subscript joins them.
    func value(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return self[name] }
            found = field.value
        }
        return found
    }
}
