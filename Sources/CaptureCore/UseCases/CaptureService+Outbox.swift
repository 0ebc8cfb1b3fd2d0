extension CaptureService {
    /// `capturectl mail list`: newest first.
    public func listMail(limit: Int = 100) async throws -> [OutboxEntry] {
        try await store.outbox.list(limit: limit)
    }

    public func findMail(_ id: Int64) async throws -> OutboxEntry {
        guard let entry = try await store.outbox.find(id: id) else { throw CaptureError.recordNotFound("message \(id)") }
        return entry
    }

    /// `capturectl mail retry`: a failed or waiting message is due again now, while its body (and code) lives.
    public func retryMail(_ id: Int64) async throws -> OutboxEntry {
        var entry = try await findMail(id)
        guard entry.status != .sent, entry.status != .suppressed else {
            throw CaptureError.notPermitted("message \(id) is \(entry.status.rawValue); there is nothing to resend")
        }
        guard entry.text != nil, entry.bodyExpiresAt > time.now() else {
            throw CaptureError.notPermitted("message \(id)'s code has expired; ask for a new one instead")
        }
        entry.status = .pending
        entry.nextAttemptAt = time.now()
        try await store.outbox.update(entry)
        mailSignal.wake()
        return entry
    }
}
