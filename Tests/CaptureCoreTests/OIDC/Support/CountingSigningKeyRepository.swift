import CaptureCore
import Foundation
import Synchronization

/// A real signing-key repository that counts the first keys offered to it (`addFirst`): how many keys an instance made.
final class CountingSigningKeyRepository: SigningKeyRepository {
    let base: any SigningKeyRepository
    private let offered = Mutex(0)

    init(_ base: any SigningKeyRepository) { self.base = base }

    var firstKeysOffered: Int { offered.withLock { $0 } }

    func list() async throws -> [SigningKey] { try await base.list() }

    func addFirst(_ key: SigningKey) async throws -> Bool {
        offered.withLock { $0 += 1 }
        return try await base.addFirst(key)
    }

    func rotate(to key: SigningKey, retiringOthersAt retireAt: Date, now: Date) async throws -> SigningKey {
        try await base.rotate(to: key, retiringOthersAt: retireAt, now: now)
    }
}
