import CaptureJSON
import Foundation

/// Sign-in-time migration from the Janrain app this service replaces (docs/adr/0065-sign-in-time-migration.md):
/// the one place that decides when the old app is asked, and what of its answer is kept. A password sign-in for an
/// address with no local password, and a forgot-password for an address unknown here, ask the old app once, until
/// the cutover; what it vouches for is created here through the import's path (`ImportRecord`), its `uuid` and
/// `id` kept, and audited as `user.migrated`. Nothing here throws: an old app that is down, slow or strange is
/// "not migrated", which the callers answer as they answer an unknown address.
public struct LegacyMigration: Sendable {
    let legacy: (any LegacyApp)?
    let settings: LegacyJanrainSettings?
    let breaker: LegacyBreaker?
    let users: any UserRepository
    let hasher: any PasswordHasher
    let catalog: FlowCatalog
    let time: any TimeSource
    let audit: AuditTrail

    public init(
        legacy: (any LegacyApp)?, settings: LegacyJanrainSettings?, breaker: LegacyBreaker?,
        users: any UserRepository, hasher: any PasswordHasher, catalog: FlowCatalog, time: any TimeSource,
        audit: AuditTrail
    ) {
        self.legacy = legacy
        self.settings = settings
        self.breaker = breaker
        self.users = users
        self.hasher = hasher
        self.catalog = catalog
        self.time = time
        self.audit = audit
    }

    /// Whether a password sign-in for `found` (nil: the address is unknown here) may ask the old app: one is set up,
    /// the cutover has not come, and there is no local password to check. The breaker decides the rest.
    public func asks(for found: User?, now: Date) -> Bool {
        guard legacy != nil, let cutover = settings?.cutoverDate, now < cutover else { return false }
        guard let found else { return true }
        return !found.isDisabled && Self.hasNoUsablePassword(found)
    }

    /// A user whose record holds no password this service can check: none at all (imported without one, or made by a
    /// social sign-in), or one it never runs (`StoredPasswordHash.Format.unusable`: out of shape or over the cost
    /// bounds). A legacy hash awaiting its first sign-in is usable: it is checked here, never at the old app.
    public static func hasNoUsablePassword(_ user: User) -> Bool {
        guard let hash = user.passwordHash, !hash.isEmpty else { return true }
        return StoredPasswordHash.format(of: hash) == .unusable
    }

    /// A password sign-in the local store could not answer: the old app is asked with `password`; when it accepts,
    /// its record becomes (or completes) the user here with `password` hashed by the service's hasher, and the user
    /// is answered. Nil in every other case.
    public func signIn(email: String, password: String, found: User?) async -> User? {
        guard asks(for: found, now: time.now()), let legacy, let breaker,
            let permit = await breaker.admit(now: time.now())
        else { return nil }
        var answered = false
        var record: JSONValue?
        switch await legacy.signIn(email: email, password: password) {
        case .failed(let reason): await noteFailure(reason)
        case .refused: answered = true
        case .found(let uuid):
            switch await legacy.record(.uuid(uuid)) {
            case .found(let value):
                answered = true
                // The record must be the one the sign-in vouched for, at the address typed here.
                if Self.uuid(of: value) == uuid.lowercased() { record = value }
            case .refused: answered = true
            case .failed(let reason): await noteFailure(reason)
            }
        }
        await breaker.finish(permit, answered: answered, now: time.now())
        guard let record, var user = imported(record, email: email) else { return nil }
        user.passwordHash = await hasher.hash(password)
        if let kept = await keep(user, found: found, how: "sign-in") { return kept }
        // Another sign-in of the same person (a second tap, a second device) migrated the record meanwhile: it holds
        // the password the old app just vouched for, so this sign-in goes on with it rather than failing.
        guard found == nil, let other = try? await users.find(email: user.email), other.id == user.id,
            let hash = other.passwordHash, await hasher.verify(password, hash: hash)
        else { return nil }
        return other
    }

    /// A forgot-password for an address unknown here: the old app's record for it, created here without a
    /// password (the reset mailed next sets one). Nil when the old app has none, is not asked, or does not answer.
    public func recover(email: String) async -> User? {
        guard asks(for: nil, now: time.now()), let legacy, let breaker,
            let permit = await breaker.admit(now: time.now())
        else { return nil }
        var answered = false
        var record: JSONValue?
        switch await legacy.record(.email(email)) {
        case .found(let value):
            answered = true
            record = value
        case .refused: answered = true
        case .failed(let reason): await noteFailure(reason)
        }
        await breaker.finish(permit, answered: answered, now: time.now())
        guard let record, let user = imported(record, email: email) else { return nil }
        return await keep(user, found: nil, how: "forgot-password")
    }

    /// The old app's record as a user, through the import's checks (`ImportRecord`): its `uuid`, `id` and stamps
    /// kept, attributes this schema does not define left out, any password it carries ignored (the typed one is
    /// what is kept). Nil when it is not a record of `email`, or the schema refuses it.
    func imported(_ record: JSONValue, email: String) -> User? {
        guard case .object(var members) = record, Self.uuid(of: record) != nil else { return nil }
        members.removeValue(forKey: "password")
        guard
            let user = try? ImportRecord.user(
                from: .object(members), schema: catalog.schema, ignoreUnknown: true, now: time.now(),
                newID: { "" }),
            !user.id.isEmpty, user.email == User.normalize(email: email)
        else { return nil }
        return user
    }

    /// Stores the migrated user: a new record through the import's batch, or the local record without a password
    /// completed when it is the same record (the same `uuid`: one imported earlier without a usable hash).
    func keep(_ user: User, found: User?, how: String) async -> User? {
        let origin = settings?.base ?? "the old app"
        do {
            if var found {
                guard found.id == user.id, let hash = user.passwordHash else { return nil }
                found.passwordHash = hash
                found.updatedAt = time.now()
                try await users.update(found)
                await audit.recordSecurityEvent(
                    "user.migrated", target: found.id, detail: "password from \(origin) at \(how)")
                return found
            }
            guard case .success(let stored)? = try await users.importBatch([user]).first else { return nil }
            await audit.recordSecurityEvent("user.migrated", target: stored.id, detail: "record from \(origin) at \(how)")
            return stored
        } catch {
            return nil
        }
    }

    /// An old app that did not answer is an audit row for operators, at most one a minute (never the address asked
    /// about, nor a body).
    func noteFailure(_ reason: String) async {
        await audit.recordSecurityEvent(
            "user.migration_failed", target: settings?.base ?? "legacyJanrain", outcome: "unavailable", detail: reason,
            oncePer: 60)
    }

    static func uuid(of record: JSONValue) -> String? {
        guard case .object(let members) = record, case .string(let text)? = members["uuid"],
            let uuid = try? ImportRecord.uuid(.string(text))
        else { return nil }
        return uuid
    }
}
