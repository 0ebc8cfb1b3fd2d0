extension PostgresMigrations {
    /// Step p12: the rows a kept token check depends on (`TokenCheckCache`), named on `capture_changes` by the
    /// writing transaction (`PostgresChangeListener`).
    ///
    /// A change is `"<subject> <keys>"`: `tokens` with row ids, `users` with `hashtextextended(id, 0)` (users' ids
    /// are text; the lookups select the same key), `clients` with the new version; `all` for more rows than
    /// `rowChangeLimit` in one statement (each trigger reads one more row than that to know). `capture_changed` sends it as `"<schema> <change>"` and also appends it to
    /// the transaction's `capture.changes` setting, which the writing instance reads just before its commit
    /// (`PostgresStore.transaction`), so that it retires its own kept checks at once instead of when the notice
    /// comes back.
    ///
    /// Only what a kept check holds is told: updates and deletions of access tokens that were neither revoked nor
    /// used, deletions of users, and updates of a user's address, standing or verification (as
    /// `SQLiteUserRepository.standingColumns`). A sign-in's `last_login_at`, a profile edit, a refresh token's
    /// redemption tell nothing: each notice is a write to PostgreSQL's notification queue at the commit.
    static let rowChangeNotices = [
        """
        CREATE FUNCTION capture_changed(subject text, n bigint, keys text) RETURNS void LANGUAGE plpgsql AS $$
        DECLARE
            change text := subject || ' ' || CASE WHEN n > \(rowChangeLimit) THEN 'all' ELSE keys END;
            told text := coalesce(current_setting('capture.changes', true), '');
        BEGIN
            IF n = 0 THEN
                RETURN;
            END IF;
            PERFORM pg_notify('capture_changes', current_schema() || ' ' || change);
            IF length(told) > 4000 THEN
                change := 'all all';
            ELSIF told <> '' THEN
                change := told || ';' || change;
            END IF;
            PERFORM set_config('capture.changes', change, true);
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION clients_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            changed bigint;
        BEGIN
            UPDATE change_counters SET version = version + 1 WHERE name = 'clients' RETURNING version INTO changed;
            PERFORM capture_changed('clients', 1, changed::text);
            RETURN NULL;
        END $$
        """,
        """
        CREATE FUNCTION tokens_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            n bigint;
            keys text;
        BEGIN
            SELECT count(*), string_agg(id::text, ',') INTO n, keys FROM (
                SELECT id FROM gone WHERE kind = 'access' AND revoked_at IS NULL AND used_at IS NULL
                LIMIT \(rowChangeLimit + 1)) AS changed;
            PERFORM capture_changed('tokens', n, keys);
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER tokens_updated AFTER UPDATE ON tokens REFERENCING OLD TABLE AS gone
        FOR EACH STATEMENT EXECUTE FUNCTION tokens_changed()
        """,
        """
        CREATE TRIGGER tokens_deleted AFTER DELETE ON tokens REFERENCING OLD TABLE AS gone
        FOR EACH STATEMENT EXECUTE FUNCTION tokens_changed()
        """,
        """
        CREATE FUNCTION users_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            n bigint;
            keys text;
        BEGIN
            SELECT count(*), string_agg(hashtextextended(id, 0)::text, ',') INTO n, keys FROM (
                SELECT gone.id FROM gone JOIN fresh ON fresh.id = gone.id
                WHERE fresh.email IS DISTINCT FROM gone.email OR fresh.disabled_at IS DISTINCT FROM gone.disabled_at
                    OR (fresh.email_verified_at IS NULL) <> (gone.email_verified_at IS NULL)
                LIMIT \(rowChangeLimit + 1)) AS changed;
            PERFORM capture_changed('users', n, keys);
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER users_updated AFTER UPDATE ON users REFERENCING OLD TABLE AS gone NEW TABLE AS fresh
        FOR EACH STATEMENT EXECUTE FUNCTION users_updated()
        """,
        """
        CREATE FUNCTION users_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            n bigint;
            keys text;
        BEGIN
            SELECT count(*), string_agg(hashtextextended(id, 0)::text, ',') INTO n, keys FROM (
                SELECT id FROM gone LIMIT \(rowChangeLimit + 1)) AS changed;
            PERFORM capture_changed('users', n, keys);
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER users_deleted AFTER DELETE ON users REFERENCING OLD TABLE AS gone
        FOR EACH STATEMENT EXECUTE FUNCTION users_deleted()
        """,
    ]

    /// Past this many rows in one statement, `all`: a notice's payload is at most 8000 bytes.
    static let rowChangeLimit = 100
}
