import CaptureJSON
import Foundation

/// A client's Android app as settings name it: its package and the SHA-256 fingerprints of its signing
/// certificates (`AB:CD:…`, as `keytool` and Play Console print them).
public struct AndroidAppSettings: Sendable, Equatable, Codable {
    public var package: String
    public var sha256CertFingerprints: [String]

    public init(package: String, sha256CertFingerprints: [String]) {
        self.package = package
        self.sha256CertFingerprints = sha256CertFingerprints
    }

    /// The fingerprint's 32 bytes, or nil when it is not 32 hex pairs separated by colons.
    static func bytes(ofFingerprint text: String) -> [UInt8]? {
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for pair in pairs {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// The origin Android's Credential Manager names an app's requests with: `android:apk-key-hash:` and the
    /// certificate's SHA-256, base64url.
    public var origins: [String] {
        sha256CertFingerprints.compactMap(Self.bytes(ofFingerprint:)).map {
            "android:apk-key-hash:" + Data($0).base64URLEncoded()
        }
    }
}

/// What the apps need to use this service's passkeys: the associated-domain files iOS and Android fetch, and the
/// origins their requests carry. Everything comes from the clients in settings.
public enum AppAssociation {
    /// `GET /.well-known/apple-app-site-association`: `webcredentials.apps` lists every client's iOS apps.
    public static func appleAppSiteAssociation(_ clients: [ClientSettings]) -> JSONValue {
        let apps = Set(clients.flatMap { $0.iosAppIds ?? [] }).sorted()
        return ["webcredentials": ["apps": .array(apps.map(JSONValue.string))]]
    }

    /// `GET /.well-known/assetlinks.json`: a `get_login_creds` statement per Android app.
    public static func assetLinks(_ clients: [ClientSettings]) -> JSONValue {
        let apps = clients.flatMap { $0.androidApps ?? [] }
        return .array(
            apps.map { app in
                [
                    "relation": ["delegate_permission/common.get_login_creds"],
                    "target": [
                        "namespace": "android_app", "package_name": .string(app.package),
                        "sha256_cert_fingerprints": .array(app.sha256CertFingerprints.map { .string($0.uppercased()) }),
                    ],
                ]
            })
    }

    /// The relying party of a deployment: its id, and the origins a ceremony may come from (the public origin and
    /// every client's Android apps).
    public static func relyingParty(_ settings: ServiceSettings) -> RelyingParty {
        let origin = URLOrigin.reused(settings.resolvedPublicOrigin)
        let androidOrigins = settings.clients.flatMap { ($0.androidApps ?? []).flatMap(\.origins) }
        return RelyingParty(
            id: settings.passkeyRelyingPartyID ?? origin?.host ?? settings.host, name: settings.appID,
            origins: Set([origin?.description ?? settings.resolvedPublicOrigin] + androidOrigins))
    }

    /// WebAuthn §5.1.4.1: an RP id is the origin's host or a registrable suffix of it.
    static func isRelyingPartyID(_ id: String, of publicOrigin: String) -> Bool {
        guard let host = URLOrigin(publicOrigin)?.host, !id.isEmpty, id.contains(".") || id == host else { return false }
        return host == id || host.hasSuffix("." + id)
    }

    /// The first problem with a client's app settings, as (key, problem).
    static func problem(with client: ClientSettings) -> (String, String)? {
        for id in client.iosAppIds ?? [] {
            let parts = id.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }),
                !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.".contains($0)) })
            else { return ("iosAppIds", "'\(id)' must be TEAMID.bundle.id (a 10-character team id)") }
        }
        for app in client.androidApps ?? [] {
            let segments = app.package.split(separator: ".", omittingEmptySubsequences: false)
            guard segments.count >= 2,
                segments.allSatisfy({
                    $0.first?.isLetter == true && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                })
            else { return ("androidApps", "'\(app.package)' is not an Android package name") }
            guard !app.sha256CertFingerprints.isEmpty,
                app.sha256CertFingerprints.allSatisfy({ AndroidAppSettings.bytes(ofFingerprint: $0) != nil })
            else { return ("androidApps", "\(app.package): sha256CertFingerprints must be 32 hex pairs like AB:CD:…") }
        }
        return nil
    }
}
