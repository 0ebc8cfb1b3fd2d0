import Foundation

/// What address-first passkey sign-in lists for an address (issue 48): the account's passkeys, or, for an address
/// without an account or an account without passkeys, made-up ones of the same shape, so the list does not tell who
/// has passkeys. A made-up list is drawn from a MAC of the address under the code key: the same every time and on
/// every instance (a repeat cannot tell it from a real list by changing), and as random as a real credential id to
/// anyone without the key. What a real list shows of its transports is cut down to the shapes a made-up one draws,
/// so they carry nothing a made-up list could not.
public struct PasskeyDecoy: Sendable {
    let key: CodeKey

    public init(key: CodeKey) {
        self.key = key
    }

    /// WebAuthn's transports (§5.8.4, `AuthenticatorTransport`); a client's other words are dropped at registration.
    public static let knownTransports: Set<String> = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]

    /// The transports a listing shows: a platform's passkey, a security key, or no hint (the client tries everything).
    static let platform = ["hybrid", "internal"]
    static let securityKey = ["nfc", "usb"]

    /// The stored transports as a listing shows them. Transports are hints for the client, so widening a platform's
    /// to `hybrid` + `internal` or a key's to `nfc` + `usb`, or dropping a rare one (`ble`, `smart-card`) to no hint
    /// at all, only lets the client try more ways; it never hides the authenticator.
    public static func shown(_ transports: [String]) -> [String] {
        let given = Set(transports)
        if !given.isDisjoint(with: platform) { return platform }
        if !given.isEmpty, given.isSubset(of: securityKey) { return securityKey }
        return []
    }

    /// The passkeys listed for an address without any: one to three, each with an id as long as the platforms make
    /// them (Google Password Manager 16 bytes, iCloud Keychain 20, Windows Hello and security keys 32 or 64) and one
    /// of the transport shapes a real listing shows, in proportions near what real accounts have.
    public func credentials(for address: String) -> [Passkey] {
        let label = "passkey decoy\n" + User.normalize(email: address)
        let shape = key.derive(label + "\nshape", count: 7)
        let count = shape[0] < 179 ? 1 : shape[0] < 235 ? 2 : 3
        return (0..<count).map { index in
            let pick = shape[1 + 2 * index]
            let length = pick < 90 ? 20 : pick < 180 ? 16 : pick < 240 ? 32 : 64
            let hint = shape[2 + 2 * index]
            let transports = hint < 180 ? Self.platform : hint < 230 ? Self.securityKey : []
            return Passkey(
                credentialID: Data(key.derive(label + "\nid \(index)", count: length)).base64URLEncoded(), userID: "",
                name: "", publicKey: [], signCount: 0, backupEligible: false, backedUp: false, transports: transports,
                createdAt: Date(timeIntervalSince1970: 0))
        }
    }
}
