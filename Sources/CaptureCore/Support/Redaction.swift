/// Values that hold secrets describe themselves without them. A log line that interpolates one, at any level, shows
/// what an operator needs and never a secret: ServiceLifecycle's "Starting service" (debug) prints each service whole,
/// and a service holds the settings (client secrets, the database URL's password, the SMTP password) and the
/// providers (their client secrets). Both the description and the mirror are redacted, so neither
/// `String(describing:)` of an enclosing value nor `dump` reaches a secret.
extension ServiceSettings: CustomStringConvertible, CustomReflectable {
    public var description: String { "ServiceSettings(host: \(host), port: \(port), secrets redacted)" }
    public var customMirror: Mirror {
        Mirror(self, children: ["host": host, "port": port, "publicOrigin": publicOrigin as Any], displayStyle: .struct)
    }
}

extension ClientSettings: CustomStringConvertible, CustomReflectable {
    public var description: String { "ClientSettings(clientId: \(clientId), secret redacted)" }
    public var customMirror: Mirror { Mirror(self, children: ["clientId": clientId], displayStyle: .struct) }
}

extension SMTPRelay: CustomStringConvertible, CustomReflectable {
    public var description: String { "SMTPRelay(\(host):\(port), password redacted)" }
    public var customMirror: Mirror { Mirror(self, children: ["host": host, "port": port], displayStyle: .struct) }
}

extension SocialProvider: CustomStringConvertible, CustomReflectable {
    public var description: String { "SocialProvider(\(settings.name), secret redacted)" }
    public var customMirror: Mirror { Mirror(self, children: ["name": settings.name], displayStyle: .struct) }
}

extension CaptureFeatures: CustomStringConvertible, CustomReflectable {
    public var description: String { "CaptureFeatures(\(settings.resolvedPublicOrigin))" }
    public var customMirror: Mirror { Mirror(self, children: ["origin": settings.resolvedPublicOrigin], displayStyle: .struct) }
}
