/// The operator's verbs on the database, as `actor`: every change is written to the audit log with its outcome.
public struct DatabaseAdminConsole: AdminConsole {
    public let features: CaptureFeatures
    public let actor: AuditActor

    public init(features: CaptureFeatures, actor: AuditActor) {
        self.features = features
        self.actor = actor
    }

    public func perform<Input, Output>(_ operation: AdminOperation<Input, Output>, _ input: Input) async throws -> Output {
        try await operation.perform(input, on: features, as: actor)
    }
}
