import CaptureJSON
import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The key one-time codes are stored under (HMAC-SHA-256), kept outside the database: a copy of the database alone
/// holds hashes nobody can test a guess against. A code has 40 bits; under a plain hash a GPU recovers a live one
/// in minutes, under this key not at all without the key (docs/threat-model.md, "Offline code guessing").
///
/// From `CAPTURE_CODE_KEY` (64 hex digits), else the file `codeKeyFile`, made (0600, 32 random bytes) at the first
/// start when absent. Every instance of a deployment needs the same key; rotating it retires outstanding codes.
public struct CodeKey: Sendable {
    let key: SymmetricKey

    public init(bytes: [UInt8]) {
        key = SymmetricKey(data: bytes)
    }

    /// A key of this process alone (tests; tools that never check a code).
    public static func ephemeral(_ random: any RandomSource = SystemRandom()) -> CodeKey {
        CodeKey(bytes: random.bytes(32))
    }

    /// The environment's key, else the file's, else a new one written to the file.
    public static func load(
        environment: [String: String], file: String, random: any RandomSource = SystemRandom()
    ) throws
        -> CodeKey
    {
        if let hex = environment["CAPTURE_CODE_KEY"], !hex.isEmpty {
            guard let bytes = Self.bytes(hex: hex) else {
                throw SettingsError(file: "environment", key: "CAPTURE_CODE_KEY", problem: "must be 64 hex digits (32 bytes)")
            }
            return CodeKey(bytes: bytes)
        }
        let url = URL(fileURLWithPath: file)
        // Instances starting together on a new deployment agree on one key: the file is created exclusively, and
        // whoever loses the race reads the winner's once it is written.
        for _ in 0..<50 {
            if let text = try? String(contentsOf: url, encoding: .utf8), !text.isEmpty {
                guard let bytes = Self.bytes(hex: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    if text.utf8.count < 64 { usleep(20_000); continue }  // the winner is still writing
                    throw SettingsError(file: file, key: "codeKeyFile", problem: "must hold 64 hex digits (32 bytes)")
                }
                return CodeKey(bytes: bytes)
            }
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let descriptor = open(file, O_CREAT | O_EXCL | O_WRONLY, 0o600)
            if descriptor < 0 {
                if errno == EEXIST { usleep(20_000); continue }
                throw SettingsError(file: file, key: "codeKeyFile", problem: "could not be created (errno \(errno))")
            }
            let bytes = random.bytes(32)
            let text = Array(bytes.withUnsafeBytes { Hex.lowercase($0) }.utf8) + [0x0A]
            let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard written == text.count else {
                throw SettingsError(file: file, key: "codeKeyFile", problem: "could not be written (errno \(errno))")
            }
            return CodeKey(bytes: bytes)
        }
        throw SettingsError(file: file, key: "codeKeyFile", problem: "stayed empty: another process created it and wrote nothing")
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = digits[index].hexDigitValue, let low = digits[index + 1].hexDigitValue else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// HMAC-SHA-256 of `message`, hex.
    func mac(_ message: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key).withUnsafeBytes { Hex.lowercase($0) }
    }

    /// `count` bytes drawn from `label` under this key (HMAC-SHA-256 blocks of label and block number): the same
    /// label gives the same bytes on every instance, and nobody without the key can tell them from random ones.
    func derive(_ label: String, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var block = 0
        while bytes.count < count {
            bytes += HMAC<SHA256>.authenticationCode(for: Data("\(label)\n\(block)".utf8), using: key)
            block += 1
        }
        return Array(bytes.prefix(count))
    }

    /// Seals a secret the service must read again (an authenticator app's): AES-GCM under a key derived from this
    /// one, base64url of nonce, ciphertext and tag. A copy of the database alone cannot open it.
    func seal(_ secret: [UInt8]) -> String {
        let box = try! AES.GCM.seal(secret, using: sealingKey)  // only fails for a nonce of the wrong size
        return box.combined!.base64URLEncoded()
    }

    /// The sealed secret, or nil when it was not sealed under this key.
    func unseal(_ sealed: String) -> [UInt8]? {
        guard let data = Data(base64URLEncoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
            let secret = try? AES.GCM.open(box, using: sealingKey)
        else { return nil }
        return Array(secret)
    }

    /// Seals what a browser carries for the service (an OpenID Connect authorization request, a sign-in session):
    /// as `seal(_:)`, under a key of its own for each `purpose`, so nothing sealed for one use opens as another.
    func seal(_ bytes: [UInt8], purpose: String) -> String {
        let box = try! AES.GCM.seal(bytes, using: SymmetricKey(data: derive("sealing: " + purpose, count: 32)))
        return box.combined!.base64URLEncoded()
    }

    func unseal(_ sealed: String, purpose: String) -> [UInt8]? {
        guard let data = Data(base64URLEncoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
            let bytes = try? AES.GCM.open(box, using: SymmetricKey(data: derive("sealing: " + purpose, count: 32)))
        else { return nil }
        return Array(bytes)
    }

    private var sealingKey: SymmetricKey {
        SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Data("capture-bridge sealing key".utf8), using: key))
    }
}
