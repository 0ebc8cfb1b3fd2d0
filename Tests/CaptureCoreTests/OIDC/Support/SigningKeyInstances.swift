import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation

/// Service instances sharing one new store (a SQLite file, or a PostgreSQL schema), one code key and one clock, as
/// instances of one deployment do: each `CaptureFeatures` has its own storage connections and its own keys in memory.
enum SigningKeyInstances {
    static func make(
        _ count: Int, backend: TestBackend, time: TestTime = TestTime(), codeKey: CodeKey = .ephemeral()
    ) async throws -> [CaptureFeatures] {
        let location = try await TestStorage.newLocation(backend)
        var instances: [CaptureFeatures] = []
        for _ in 0..<count {
            instances.append(try await instance(on: location, time: time, codeKey: codeKey))
        }
        return instances
    }

    /// One more instance on `location`.
    static func instance(on location: DatabaseLocation, time: TestTime, codeKey: CodeKey) async throws -> CaptureFeatures {
        let storage = try await OpenedStorage.open(location)
        return await CaptureFeatures.make(
            settings: ServiceSettings(), catalog: FlowCatalog(schema: .emailOnly, fields: [:], forms: [:], flows: [:]),
            store: storage.repositories, time: time, codeKey: codeKey)
    }
}
