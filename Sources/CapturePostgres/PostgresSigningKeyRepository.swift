import CaptureCore
import Foundation
import PostgresNIO

/// Signing keys in PostgreSQL, shared by every instance. A first key is inserted only while its algorithm has none
/// (two instances racing: the unique (alg, generation) keeps one, the other's insert does nothing); a rotation
/// runs under an advisory lock per algorithm, so two rotations at once each get a generation of their own.
struct PostgresSigningKeyRepository: SigningKeyRepository {
    let store: PostgresStore

    func list() async throws -> [SigningKey] {
        try await store.query("SELECT * FROM signing_keys ORDER BY alg, generation").map(Self.record)
    }

    func addFirst(_ key: SigningKey) async throws -> Bool {
        try await !store.query(
            """
            INSERT INTO signing_keys (kid, alg, generation, sealed_key, created_at, retire_at)
            SELECT \(key.kid), \(key.algorithm.rawValue), 1, \(key.sealedKey), \(key.createdAt), NULL
            WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE alg = \(key.algorithm.rawValue))
            ON CONFLICT DO NOTHING RETURNING 1
            """
        ).isEmpty
    }

    func rotate(to key: SigningKey, retiringOthersAt retireAt: Date, now: Date) async throws -> SigningKey {
        try await store.transaction { connection in
            try await connection.lock("signing_keys:" + key.algorithm.rawValue)
            try await connection.rows("DELETE FROM signing_keys WHERE retire_at <= \(now)")
            try await connection.rows(
                """
                UPDATE signing_keys SET retire_at = \(retireAt)
                WHERE alg = \(key.algorithm.rawValue) AND retire_at IS NULL
                """)
            let highest =
                try await connection.rows(
                    "SELECT COALESCE(MAX(generation), 0) AS highest FROM signing_keys WHERE alg = \(key.algorithm.rawValue)"
                ).first.map { try Columns($0)("highest", as: Int.self) } ?? 0
            var newest = key
            newest.generation = highest + 1
            try await connection.rows(
                """
                INSERT INTO signing_keys (kid, alg, generation, sealed_key, created_at, retire_at)
                VALUES (\(newest.kid), \(newest.algorithm.rawValue), \(newest.generation), \(newest.sealedKey),
                    \(newest.createdAt), NULL)
                """)
            return newest
        }
    }

    static func record(_ row: PostgresRow) throws -> SigningKey {
        let c = Columns(row)
        let name: String = try c("alg")
        guard let algorithm = JWSAlgorithm(rawValue: name) else {
            throw CaptureError.unexpected("signing_keys holds a key of an algorithm this build does not know: \(name)")
        }
        return SigningKey(
            kid: try c("kid"), algorithm: algorithm, generation: try c("generation"), sealedKey: try c("sealed_key"),
            createdAt: try c("created_at"), retireAt: try c("retire_at"))
    }
}
