import HTTPTypes

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let pragma = HTTPField.Name("Pragma")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
