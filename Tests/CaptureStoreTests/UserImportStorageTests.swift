import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import GRDB
import Testing

/// `UserRepository.importBatch` on SQLite: each record stored whole or not at all, collisions named.
@Suite("Import storage")
struct UserImportStorageTests {
    /// The repository's schema plus a unique attribute, which the shipped schema does not have.
    static let schema: EntitySchema = {
        var schema = try! FlowCatalog.load(directory: TestWorld.settingsDirectory).schema
        var nickname = AttributeDefinition(name: "nickname", type: .string)
        nickname.unique = true
        schema.attributes["nickname"] = nickname
        return schema
    }()

    static func user(_ n: Int, nickname: String? = nil, number: Int64? = nil, email: String? = nil) throws -> User {
        var members: [String: JSONValue] = ["email": .string(email ?? "u\(n)@example.com")]
        if let nickname { members["nickname"] = .string(nickname) }
        if let number { members["id"] = .int(number) }
        return try ImportRecord.user(
            from: .object(members), schema: schema, ignoreUnknown: false, now: Date(),
            newID: { "00000000-0000-4000-8000-00000000000\(n)" })
    }

    @Test("a record whose unique value another holds leaves nothing behind; the rest of the batch is stored")
    func uniqueCollision() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let outcomes = try await world.service.store.users.importBatch([
            try Self.user(1, nickname: "Ace"), try Self.user(2, nickname: "ACE"), try Self.user(3, nickname: "Bee"),
            try Self.user(4, email: "U1@example.com"), try Self.user(1, email: "other@example.com"),
        ])
        #expect(outcomes.map { (try? $0.get()) == nil } == [false, true, false, true, true])
        #expect(outcomes[1] == .failure(.unique("nickname")))
        #expect(outcomes[3] == .failure(.email))
        #expect(outcomes[4] == .failure(.id))
        let claims = try await world.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT value, userID FROM user_unique ORDER BY value").map {
                [$0[0] as String, $0[1] as String]
            }
        }
        #expect(claims == [["ace", "00000000-0000-4000-8000-000000000001"], ["bee", "00000000-0000-4000-8000-000000000003"]])
        #expect(try await world.service.store.users.find(id: "00000000-0000-4000-8000-000000000002") == nil)
        #expect(try await world.service.admin.listUsers().count == 2)
    }

    @Test("numbers are kept when free; a taken one is replaced after the batch's own numbers")
    func numbers() async throws {
        let world = try await TestWorld.make()
        let outcomes = try await world.service.store.users.importBatch([
            try Self.user(1, number: 5), try Self.user(2, number: 5), try Self.user(3, number: 6), try Self.user(4),
        ])
        #expect(try outcomes.map { try $0.get().number } == [5, 8, 6, 7])
    }
}
