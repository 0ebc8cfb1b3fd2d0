import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// The signing-key repository's contract on both backends: one first key per algorithm however many stores race to
/// make it, rotations numbered without gaps or repeats (also when two stores rotate at once), old keys retiring and
/// retired ones deleted.
extension RepositoryConformanceTests {
    static func signingKey(_ kid: String, _ algorithm: JWSAlgorithm = .rs256, created offset: TimeInterval = 0) -> SigningKey {
        SigningKey(
            kid: kid, algorithm: algorithm, generation: 1, sealedKey: "sealed-\(kid)", createdAt: now + offset)
    }

    @Test(arguments: TestBackend.allCases)
    func theFirstSigningKeyOfAnAlgorithmIsStoredOnceHoweverManyStoresRace(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        let stored = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                let keys = (index % 2 == 0 ? a : b).repositories.signingKeys
                group.addTask { try await keys.addFirst(Self.signingKey("racer-\(index)")) }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(stored == 1)
        let listed = try await b.repositories.signingKeys.list()
        #expect(listed.count == 1 && listed[0].generation == 1 && listed[0].retireAt == nil)
        #expect(listed[0].sealedKey == "sealed-\(listed[0].kid)")
        // Another algorithm has a first key of its own.
        #expect(try await a.repositories.signingKeys.addFirst(Self.signingKey("ec", .es256)))
        #expect(try await a.repositories.signingKeys.list().map(\.algorithm) == [.es256, .rs256])
    }

    @Test(arguments: TestBackend.allCases)
    func aRotationRetiresTheAlgorithmsActiveKeyAndDeletesRetiredOnes(_ backend: TestBackend) async throws {
        let keys = try await TestStorage.open(backend).repositories.signingKeys
        #expect(try await keys.addFirst(Self.signingKey("r1")))
        #expect(try await keys.addFirst(Self.signingKey("e1", .es256)))
        let retire = Self.now + 3900
        let second = try await keys.rotate(to: Self.signingKey("r2", created: 10), retiringOthersAt: retire, now: Self.now + 10)
        #expect(second.generation == 2 && second.kid == "r2" && second.retireAt == nil)
        var listed = try await keys.list()
        #expect(listed.map(\.kid) == ["e1", "r1", "r2"])
        #expect(listed.first { $0.kid == "r1" }?.retireAt == retire)
        #expect(listed.first { $0.kid == "e1" }?.retireAt == nil)
        #expect(listed.first { $0.kid == "r2" } == second)

        // Past r1's retirement, the next rotation deletes it and retires r2.
        let third = try await keys.rotate(
            to: Self.signingKey("r3", created: 4000), retiringOthersAt: Self.now + 8000, now: Self.now + 4000)
        #expect(third.generation == 3)
        listed = try await keys.list()
        #expect(listed.map(\.kid) == ["e1", "r2", "r3"])
        #expect(listed.first { $0.kid == "r2" }?.retireAt == Self.now + 8000)
        // A first key is refused once the algorithm has any.
        #expect(try await !keys.addFirst(Self.signingKey("late")))
    }

    @Test(arguments: TestBackend.allCases)
    func rotationsFromTwoStoresAtOnceEachGetTheirOwnGeneration(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        #expect(try await a.repositories.signingKeys.addFirst(Self.signingKey("g1")))
        try await withThrowingTaskGroup(of: SigningKey.self) { group in
            for index in 0..<6 {
                let keys = (index % 2 == 0 ? a : b).repositories.signingKeys
                group.addTask {
                    try await keys.rotate(
                        to: Self.signingKey("rotated-\(index)"), retiringOthersAt: Self.now + 3600, now: Self.now)
                }
            }
            try await group.waitForAll()
        }
        let listed = try await a.repositories.signingKeys.list()
        #expect(listed.map(\.generation) == Array(1...7))
        // Exactly one stays active: the newest.
        #expect(listed.filter { $0.retireAt == nil }.map(\.generation) == [7])
    }
}
