import CaptureCore
import Foundation
import PostgresNIO

/// A changed record's write (`PostgresUserRepository.update`), prepared once per connection so that PostgreSQL plans
/// it once, not per update: the row, and the release of the unique values it held when its profile changed (`claim`
/// takes the new ones), run only when no webhook subscription is enabled (with `unlessListening`); its one row says
/// whether one is (always false without `unlessListening`).
struct UserWriteStatement: PostgresPreparedStatement {
    static let name = "capture_user_write"
    static let sql = """
        WITH listening AS MATERIALIZED (
            SELECT $1::boolean AND EXISTS (SELECT 1 FROM webhook_subscriptions WHERE enabled) AS yes),
        written AS (
            UPDATE users SET number = $2, email = $3, password_hash = $4, profile = $5, last_element_id = $6,
                email_verified_at = $7, created_at = $8, updated_at = $9, last_login_at = $10, disabled_at = $11,
                delete_requested_at = $12
            WHERE id = $13 AND NOT (SELECT yes FROM listening)
            RETURNING 1),
        released AS (
            DELETE FROM user_unique WHERE user_id = $13 AND $14::boolean AND NOT (SELECT yes FROM listening))
        SELECT yes AS listening FROM listening
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .bool, .int8, .text, .text, .text, .int8, .timestamptz, .timestamptz, .timestamptz, .timestamptz, .timestamptz,
        .timestamptz, .text, .bool,
    ]

    let user: User
    let unlessListening: Bool

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 14)
        bindings.append(unlessListening)
        bindings.append(user.number)
        bindings.append(user.email)
        bindings.append(user.passwordHash)
        bindings.append(StoredJSON.text(user.profile))
        bindings.append(user.lastElementID)
        bindings.append(user.emailVerifiedAt)
        bindings.append(user.createdAt)
        bindings.append(user.updatedAt)
        bindings.append(user.lastLoginAt)
        bindings.append(user.disabledAt)
        bindings.append(user.deleteRequestedAt)
        bindings.append(user.id)
        bindings.append(user.uniqueValues != nil)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
