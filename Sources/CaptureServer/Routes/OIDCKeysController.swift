import CaptureCore
import Hummingbird

/// `GET /oidc/jwks`: the public keys ID tokens are signed with (RFC 7517), active and retiring, as relying parties
/// fetch them from the discovery document's `jwks_uri`. Cacheable for five minutes: a rotated key stays published
/// far longer than that (`SigningKeys`).
struct OIDCKeysController {
    let signingKeys: SigningKeys

    static let maxAgeSeconds = 300

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.get("/oidc/jwks") { _, _ in
            Reply.cacheable(try await signingKeys.document(), maxAge: Self.maxAgeSeconds)
        }
    }
}
