import CaptureCore
import PostgresNIO

/// Numbered schema steps for PostgreSQL, recorded in `capture_migrations`. A step that has landed is never edited:
/// add a new one. Step 1 is the SQLite schema as its migrations v1–v8 left it, in PostgreSQL's types and
/// snake_case names. Instances starting together take turns (an advisory lock held for the whole run).
enum PostgresMigrations {
    static let steps: [(id: String, sql: [String])] = [
        ("p1-initial", initial),
        // One index for a user's tokens and a chain's (a chain belongs to one user), as SQLite's v9.
        (
            "p2-tokens-by-user-and-chain",
            [
                "CREATE INDEX tokens_by_user_chain ON tokens (user_id, chain_id)", "DROP INDEX tokens_by_user",
                "DROP INDEX tokens_by_chain",
            ]
        ),
        // The starter's challenge a travelled one-time token needs, and whether a link's provider vouched, as v11.
        (
            "p3-social-binding",
            [
                "ALTER TABLE social_logins ADD COLUMN initiator_challenge text",
                "ALTER TABLE identities ADD COLUMN vouched boolean NOT NULL DEFAULT false",
            ]
        ),
        // Whether a client's /verify may assert an address not proven yet, as v12.
        ("p4-verify-unproven", ["ALTER TABLE clients ADD COLUMN allow_unverified_email boolean NOT NULL DEFAULT false"]),
        // The relay's failures in a row while a message waited, as v13.
        ("p5-outbox-deferral", ["ALTER TABLE outbox ADD COLUMN deferrals integer NOT NULL DEFAULT 0"]),
        // The address a code was sent to, by which a restore code is found, as v14.
        (
            "p6-code-address",
            ["ALTER TABLE codes ADD COLUMN address text", "CREATE INDEX codes_by_address ON codes (address, purpose)"]
        ),
        // Passkeys, ceremonies under way and second factors, as v15.
        ("p7-passkeys-second-factors", passkeysSecondFactors),
        // When the person deleted the account, as v16.
        (
            "p8-account-deletion",
            [
                "ALTER TABLE users ADD COLUMN delete_requested_at timestamptz",
                "CREATE INDEX users_deletion ON users (delete_requested_at) WHERE delete_requested_at IS NOT NULL",
            ]
        ),
        // The device a chain's sign-in came from, as v17.
        ("p9-session-device", ["ALTER TABLE tokens ADD COLUMN device text"]),
        // A provider's refresh token, sealed, from the sign-in to the link; and those waiting to be revoked, as v18.
        (
            "p10-provider-revocations",
            [
                "ALTER TABLE social_logins ADD COLUMN provider_token text",
                "ALTER TABLE identities ADD COLUMN provider_token text",
                """
                CREATE TABLE provider_revocations (
                    id bigserial PRIMARY KEY, provider text NOT NULL, sealed_token text NOT NULL,
                    attempts integer NOT NULL DEFAULT 0, next_attempt_at timestamptz NOT NULL, last_error text,
                    queued_at timestamptz NOT NULL)
                """,
                "CREATE INDEX provider_revocations_due ON provider_revocations (next_attempt_at)",
            ]
        ),
        // The clients' new version told to every listening instance at the commit (PostgresChangeListener).
        (
            "p11-change-notices",
            [
                """
                CREATE OR REPLACE FUNCTION clients_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                DECLARE
                    changed bigint;
                BEGIN
                    UPDATE change_counters SET version = version + 1 WHERE name = 'clients' RETURNING version INTO changed;
                    PERFORM pg_notify('capture_changes', current_schema() || ' clients ' || changed);
                    RETURN NULL;
                END $$
                """
            ]
        ),
        // Which token and user rows changed, told the same way, for the token checks kept in memory.
        ("p12-row-change-notices", rowChangeNotices),
        // Fewer index writes a redemption: room on each new page of tokens for the row's next version (marking a
        // token used or revoked then writes no index entry: a heap-only update), and one index on the hash instead
        // of two (a unique `text_pattern_ops` index answers both `=` and the fingerprint's prefix).
        (
            "p13-token-writes",
            [
                "ALTER TABLE tokens SET (fillfactor = 80)",
                "CREATE UNIQUE INDEX tokens_by_hash ON tokens (hash text_pattern_ops)",
                "ALTER TABLE tokens DROP CONSTRAINT tokens_hash_key", "DROP INDEX tokens_by_hash_prefix",
            ]
        ),
        // Janrain's site_name, verify_email_url and password_recover_url, for clients registered at run time too.
        (
            "p14-client-pages",
            [
                "ALTER TABLE clients ADD COLUMN site_name text, ADD COLUMN verify_email_url text, "
                    + "ADD COLUMN password_recover_url text"
            ]
        ),
        // Janrain's filters and sorts on `lastUpdated`, as v20 (`created_at` has `users_by_creation` since p1, and
        // `number` its unique index); profile attributes get theirs at startup, from the schema.
        ("p15-entity-filters", ["CREATE INDEX users_by_update ON users (updated_at)"]),
        // Janrain's client features and whitelist; the app's default settings and each client's own, which take over
        // p14's three columns, as v21. A setting's change is a change of the clients (their version and notice).
        ("p16-client-settings", clientSettings),
        // A client's secret sealed under the code key, for Janrain-signed requests (as v22).
        ("p17-sealed-client-secrets", ["ALTER TABLE clients ADD COLUMN sealed_secret text"]),
        // The secret a client had before a rotation that keeps it for a while (as v23).
        (
            "p18-retiring-client-secrets",
            [
                "ALTER TABLE clients ADD COLUMN retiring_secret_hash text, ADD COLUMN retiring_sealed_secret text, "
                    + "ADD COLUMN retiring_secret_expires_at timestamptz"
            ]
        ),
        // The highest Janrain number any record held, kept past its deletion: ids are never given again (as v24).
        (
            "p19-user-number-floor",
            [
                "CREATE TABLE user_number_floor (highest bigint NOT NULL)",
                "INSERT INTO user_number_floor (highest) SELECT COALESCE(MAX(number), 0) FROM users",
                """
                CREATE FUNCTION users_number_floor() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN UPDATE user_number_floor SET highest = GREATEST(highest, NEW.number); RETURN NULL; END $$
                """,
                """
                CREATE TRIGGER users_number_floor AFTER INSERT ON users FOR EACH ROW WHEN (NEW.number IS NOT NULL)
                EXECUTE FUNCTION users_number_floor()
                """,
            ]
        ),
        // OpenID Connect's signing keys, sealed under the code key; one per algorithm and generation (as v25).
        (
            "p20-signing-keys",
            [
                """
                CREATE TABLE signing_keys (
                    kid text PRIMARY KEY, alg text NOT NULL, generation bigint NOT NULL, sealed_key text NOT NULL,
                    created_at timestamptz NOT NULL, retire_at timestamptz, UNIQUE (alg, generation))
                """
            ]
        ),
        // What an OpenID Connect sign-in adds to its token chain (as v26).
        (
            "p21-oidc-grants",
            [
                """
                CREATE TABLE oidc_grants (
                    chain_id text PRIMARY KEY, issuer text NOT NULL, client_id text NOT NULL,
                    user_id text NOT NULL REFERENCES users ON DELETE CASCADE, scopes text NOT NULL, nonce text,
                    auth_time timestamptz NOT NULL, methods text NOT NULL, acr text, session_id text NOT NULL,
                    expires_at timestamptz NOT NULL)
                """,
                "CREATE INDEX oidc_grants_by_session ON oidc_grants (session_id)",
                "CREATE INDEX oidc_grants_by_expiry ON oidc_grants (expires_at)",
            ]
        ),
        // Webhook subscriptions, their events' outbox and each attempt (as v27, docs/adr/0071-webhooks.md).
        ("p22-webhooks", webhooks),
    ]

    private static let webhooks = [
        """
        CREATE TABLE webhook_subscriptions (
            id text PRIMARY KEY, title text NOT NULL UNIQUE, endpoint text NOT NULL, events text NOT NULL,
            clients text NOT NULL, attributes text NOT NULL, include_values boolean NOT NULL, enabled boolean NOT NULL,
            disabled_reason text, signing text NOT NULL, sealed_secret text NOT NULL, sealed_previous_secret text,
            previous_secret_expires_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)
        """,
        """
        CREATE TABLE webhook_events (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, message_id text NOT NULL,
            subscription_id text NOT NULL REFERENCES webhook_subscriptions ON DELETE CASCADE, type text NOT NULL,
            user_id text, payload text NOT NULL, status text NOT NULL, attempts integer NOT NULL,
            next_attempt_at timestamptz NOT NULL, created_at timestamptz NOT NULL, delivered_at timestamptz,
            last_error text)
        """,
        "CREATE INDEX webhook_events_waiting ON webhook_events (next_attempt_at) WHERE status = 'pending'",
        "CREATE INDEX webhook_events_by_user ON webhook_events (subscription_id, user_id, id)",
        "CREATE INDEX webhook_events_by_message ON webhook_events (message_id)",
        "CREATE INDEX webhook_events_by_creation ON webhook_events (created_at)",
        """
        CREATE TABLE webhook_attempts (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            event_id bigint NOT NULL REFERENCES webhook_events ON DELETE CASCADE, at timestamptz NOT NULL,
            status integer, milliseconds integer NOT NULL, error text)
        """,
        "CREATE INDEX webhook_attempts_by_event ON webhook_attempts (event_id)",
    ]

    private static let clientSettings = [
        """
        ALTER TABLE clients ADD COLUMN features text[] NOT NULL DEFAULT ARRAY['login_client'],
            ADD COLUMN whitelist text[] NOT NULL DEFAULT ARRAY[]::text[]
        """,
        "CREATE TABLE default_settings (key text PRIMARY KEY, value text NOT NULL)",
        """
        CREATE TABLE client_settings (
            client_id text NOT NULL REFERENCES clients ON DELETE CASCADE, key text NOT NULL, value text NOT NULL,
            PRIMARY KEY (client_id, key))
        """,
        """
        INSERT INTO client_settings (client_id, key, value)
        SELECT client_id, 'site_name', site_name FROM clients WHERE site_name IS NOT NULL
        UNION ALL SELECT client_id, 'verify_email_url', verify_email_url FROM clients WHERE verify_email_url IS NOT NULL
        UNION ALL SELECT client_id, 'password_recover_url', password_recover_url FROM clients
            WHERE password_recover_url IS NOT NULL
        """,
        "ALTER TABLE clients DROP COLUMN site_name, DROP COLUMN verify_email_url, DROP COLUMN password_recover_url",
        """
        CREATE TRIGGER default_settings_changed AFTER INSERT OR UPDATE OR DELETE ON default_settings
        FOR EACH STATEMENT EXECUTE FUNCTION clients_changed()
        """,
        """
        CREATE TRIGGER client_settings_changed AFTER INSERT OR UPDATE OR DELETE ON client_settings
        FOR EACH STATEMENT EXECUTE FUNCTION clients_changed()
        """,
    ]

    /// Applies the missing steps in one transaction; refuses a database a newer build migrated. A schema named in the
    /// location is created first, and instances take turns per schema.
    static func migrate(_ connection: PostgresConnection, location: PostgresLocation) async throws {
        do {
            try await connection.withTransaction(logger: PostgresStore.logger) { connection in
                try await connection.lock("capture_migrations" + (location.schema.map { ":" + $0 } ?? ""))
                if let schema = location.schema {
                    // A plain name (checked when the location was read): it stands in the statement as it is.
                    try await connection.rows(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"))
                }
                try await connection.rows(
                    """
                    CREATE TABLE IF NOT EXISTS capture_migrations (
                        id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """)
                var applied: Set<String> = []
                for row in try await connection.rows("SELECT id FROM capture_migrations") {
                    applied.insert(try Columns(row)("id"))
                }
                let unknown = applied.subtracting(steps.map(\.id))
                guard unknown.isEmpty else {
                    throw DatabaseTooNew(database: location.description, unknownMigrations: unknown.sorted())
                }
                for step in steps where !applied.contains(step.id) {
                    for statement in step.sql { try await connection.rows(PostgresQuery(unsafeSQL: statement)) }
                    try await connection.rows("INSERT INTO capture_migrations (id) VALUES (\(step.id))")
                }
            }
        } catch let error as PostgresTransactionError {
            // A refusal (`DatabaseTooNew`) or the server's error, not postgres-nio's wrapper.
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }

    private static let initial = [
        """
        CREATE TABLE users (
            id text PRIMARY KEY,
            number bigint UNIQUE,
            email text NOT NULL,
            password_hash text,
            profile text NOT NULL DEFAULT '{}',
            last_element_id bigint NOT NULL DEFAULT 0,
            email_verified_at timestamptz,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            last_login_at timestamptz,
            disabled_at timestamptz)
        """,
        // Addresses are stored lower-cased; the index also refuses two spellings of one address.
        "CREATE UNIQUE INDEX users_by_email ON users (lower(email))",
        "CREATE INDEX users_by_creation ON users (created_at, id)",
        """
        CREATE TABLE user_unique (
            attribute text NOT NULL,
            value text NOT NULL,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            PRIMARY KEY (attribute, value))
        """,
        "CREATE INDEX user_unique_by_user ON user_unique (user_id)",
        """
        CREATE TABLE clients (
            client_id text PRIMARY KEY,
            name text NOT NULL,
            secret_hash text,
            redirect_uris text[] NOT NULL,
            allowed_origins text[] NOT NULL,
            response_types text[] NOT NULL,
            legacy_token_url boolean NOT NULL,
            access_token_life_hours double precision,
            keep_sessions_on_password_change boolean NOT NULL DEFAULT false,
            require_verified_email boolean NOT NULL DEFAULT false,
            created_at timestamptz NOT NULL)
        """,
        """
        CREATE TABLE tokens (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            kind text NOT NULL,
            hash text NOT NULL UNIQUE,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            client_id text NOT NULL,
            chain_id text NOT NULL,
            scope text NOT NULL,
            auth_provider text NOT NULL,
            issued_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            used_at timestamptz,
            revoked_at timestamptz,
            refresh_secret text,
            redirect_uri text,
            code_challenge text)
        """,
        "CREATE INDEX tokens_by_user ON tokens (user_id)",
        "CREATE INDEX tokens_by_client ON tokens (client_id)",
        "CREATE INDEX tokens_by_chain ON tokens (chain_id)",
        "CREATE INDEX tokens_by_expiry ON tokens (expires_at)",
        // The fingerprint lookup (a prefix of the hash) in any collation.
        "CREATE INDEX tokens_by_hash_prefix ON tokens (hash text_pattern_ops)",
        """
        CREATE TABLE throttle (
            key text PRIMARY KEY,
            level double precision NOT NULL,
            updated_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL)
        """,
        "CREATE INDEX throttle_by_expiry ON throttle (expires_at)",
        """
        CREATE TABLE codes (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            purpose text NOT NULL,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            hash text NOT NULL,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            attempts integer NOT NULL,
            used_at timestamptz)
        """,
        "CREATE INDEX codes_by_user ON codes (user_id, purpose)",
        "CREATE INDEX codes_by_expiry ON codes (expires_at)",
        """
        CREATE TABLE outbox (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            message_id text NOT NULL UNIQUE,
            kind text NOT NULL,
            recipient text NOT NULL,
            user_id text REFERENCES users ON DELETE SET NULL,
            subject text NOT NULL,
            text text,
            html text,
            status text NOT NULL,
            attempts integer NOT NULL,
            next_attempt_at timestamptz NOT NULL,
            last_error text,
            created_at timestamptz NOT NULL,
            sent_at timestamptz,
            body_expires_at timestamptz NOT NULL)
        """,
        "CREATE INDEX outbox_due ON outbox (status, next_attempt_at)",
        "CREATE INDEX outbox_bodies ON outbox (body_expires_at)",
        "CREATE INDEX outbox_by_user ON outbox (user_id)",
        """
        CREATE TABLE social_logins (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            state_hash text NOT NULL UNIQUE,
            provider text NOT NULL,
            client_id text NOT NULL,
            flow text NOT NULL,
            locale text NOT NULL,
            response_type text NOT NULL,
            return_url text NOT NULL,
            nonce text NOT NULL,
            code_verifier text NOT NULL,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            subject text,
            claims text,
            token_hash text UNIQUE,
            token_expires_at timestamptz,
            used_at timestamptz)
        """,
        "CREATE INDEX social_logins_by_expiry ON social_logins (expires_at)",
        """
        CREATE TABLE identities (
            provider text NOT NULL,
            subject text NOT NULL,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            email text,
            linked_at timestamptz NOT NULL,
            last_used_at timestamptz,
            PRIMARY KEY (provider, subject))
        """,
        "CREATE INDEX identities_by_user ON identities (user_id)",
        """
        CREATE TABLE admin_keys (
            id text PRIMARY KEY,
            name text NOT NULL,
            secret_hash text NOT NULL,
            created_at timestamptz NOT NULL,
            revoked_at timestamptz)
        """,
        """
        CREATE TABLE audit_log (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at timestamptz NOT NULL,
            actor text NOT NULL,
            action text NOT NULL,
            target text NOT NULL,
            outcome text NOT NULL,
            detail text)
        """,
        "CREATE INDEX audit_log_by_time ON audit_log (at)",
        "CREATE INDEX audit_log_target ON audit_log (target, id)",
        // A version per kind of cached row, bumped in the transaction of any change from any connection, process
        // or instance: a cache compares it and drops what is stale.
        "CREATE TABLE change_counters (name text PRIMARY KEY, version bigint NOT NULL)",
        "INSERT INTO change_counters (name, version) VALUES ('clients', 0)",
        """
        CREATE FUNCTION clients_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE change_counters SET version = version + 1 WHERE name = 'clients';
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER clients_changed AFTER INSERT OR UPDATE OR DELETE ON clients
        FOR EACH STATEMENT EXECUTE FUNCTION clients_changed()
        """,
    ]

    /// v15's tables.
    private static let passkeysSecondFactors = [
        """
        CREATE TABLE passkeys (
            credential_id text PRIMARY KEY,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            name text NOT NULL,
            public_key text NOT NULL,
            sign_count bigint NOT NULL,
            backup_eligible boolean NOT NULL,
            backed_up boolean NOT NULL,
            transports text[] NOT NULL,
            created_at timestamptz NOT NULL,
            last_used_at timestamptz)
        """,
        "CREATE INDEX passkeys_by_user ON passkeys (user_id)",
        """
        CREATE TABLE ceremonies (
            hash text PRIMARY KEY,
            kind text NOT NULL,
            user_id text REFERENCES users ON DELETE CASCADE,
            client_id text NOT NULL,
            payload text NOT NULL,
            attempts integer NOT NULL DEFAULT 0,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL)
        """,
        "CREATE INDEX ceremonies_by_user ON ceremonies (user_id)",
        "CREATE INDEX ceremonies_by_expiry ON ceremonies (expires_at)",
        """
        CREATE TABLE second_factors (
            user_id text PRIMARY KEY REFERENCES users ON DELETE CASCADE,
            sealed_secret text NOT NULL,
            last_step bigint,
            recovery_hashes text[] NOT NULL,
            created_at timestamptz NOT NULL)
        """,
    ]
}
