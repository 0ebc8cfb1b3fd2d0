import GRDB

/// Numbered schema steps. A step that has landed is never edited: add a new one.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-users-clients-tokens") { db in
            try db.create(table: "users") { t in
                t.primaryKey("id", .text)
                t.column("email", .text).notNull().unique().collate(.nocase)
                t.column("passwordHash", .text)
                t.column("displayName", .text)
                t.column("givenName", .text)
                t.column("familyName", .text)
                t.column("birthday", .text)
                t.column("phone", .text)
                t.column("emailVerifiedAt", .datetime)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.column("lastLoginAt", .datetime)
                t.column("disabledAt", .datetime)
            }
            try db.create(table: "clients") { t in
                t.primaryKey("clientID", .text)
                t.column("name", .text).notNull()
                t.column("secretHash", .text)
                t.column("redirectURIs", .jsonText).notNull()
                t.column("allowedOrigins", .jsonText).notNull()
                t.column("responseTypes", .jsonText).notNull()
                t.column("legacyTokenURL", .boolean).notNull()
                t.column("accessTokenLifeHours", .double)
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "tokens") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("kind", .text).notNull()
                t.column("hash", .text).notNull().unique()
                t.column("userID", .text).notNull().indexed().references("users", onDelete: .cascade)
                t.column("clientID", .text).notNull().indexed()
                t.column("chainID", .text).notNull().indexed()
                t.column("scope", .text).notNull()
                t.column("authProvider", .text).notNull()
                t.column("issuedAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull().indexed()
                t.column("usedAt", .datetime)
                t.column("revokedAt", .datetime)
                t.column("refreshSecret", .text)
            }
        }
        migrator.registerMigration("v2-authorization-codes") { db in
            // An authorization code is bound to the redirect URI and PKCE challenge it was issued for.
            try db.alter(table: "tokens") { t in
                t.add(column: "redirectURI", .text)
                t.add(column: "codeChallenge", .text)
            }
        }
        migrator.registerMigration("v3-throttle") { db in
            // Sign-in and registration counters by hashed key; expired rows are purged through the index.
            try db.create(table: "throttle", options: [.withoutRowID]) { t in
                t.primaryKey("key", .text)
                t.column("level", .double).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull().indexed()
            }
        }
        migrator.registerMigration("v4-codes-outbox") { db in
            try db.alter(table: "clients") { t in
                t.add(column: "keepSessionsOnPasswordChange", .boolean).notNull().defaults(to: false)
                t.add(column: "requireVerifiedEmail", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "codes") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("purpose", .text).notNull()
                t.column("userID", .text).notNull().references("users", onDelete: .cascade)
                t.column("hash", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull()
                t.column("attempts", .integer).notNull()
                t.column("usedAt", .datetime)
            }
            try db.create(index: "codes_by_user", on: "codes", columns: ["userID", "purpose"])
            try db.create(table: "outbox") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("messageID", .text).notNull().unique()
                t.column("kind", .text).notNull()
                t.column("recipient", .text).notNull()
                t.column("userID", .text).references("users", onDelete: .setNull)
                t.column("subject", .text).notNull()
                t.column("text", .text)
                t.column("html", .text)
                t.column("status", .text).notNull()
                t.column("attempts", .integer).notNull()
                t.column("nextAttemptAt", .datetime).notNull()
                t.column("lastError", .text)
                t.column("createdAt", .datetime).notNull()
                t.column("sentAt", .datetime)
                t.column("bodyExpiresAt", .datetime).notNull()
            }
            try db.create(index: "outbox_due", on: "outbox", columns: ["status", "nextAttemptAt"])
            try db.create(index: "outbox_bodies", on: "outbox", columns: ["bodyExpiresAt"])
        }
        migrator.registerMigration("v5-entity-schema") { db in
            // Schema attributes move into one JSON document per user, so Settings/schema.json can grow without
            // migrations; `number` is Janrain's numeric id (the old rowids keep their order); `user_unique` holds
            // the values of the schema's unique attributes.
            try db.alter(table: "users") { t in
                t.add(column: "profile", .jsonText).notNull().defaults(to: "{}")
                t.add(column: "number", .integer)
                t.add(column: "lastElementID", .integer).notNull().defaults(to: 0)
            }
            try db.execute(
                sql: """
                    UPDATE users SET number = rowid, profile = (
                        SELECT json_group_object(key, value) FROM json_each(json_object(
                            'displayName', displayName, 'givenName', givenName, 'familyName', familyName,
                            'birthday', birthday, 'phone', phone))
                        WHERE value IS NOT NULL)
                    """)
            try db.create(index: "users_by_number", on: "users", columns: ["number"], unique: true)
            try db.alter(table: "users") { t in
                for column in ["displayName", "givenName", "familyName", "birthday", "phone"] { t.drop(column: column) }
            }
            try db.create(table: "user_unique", options: [.withoutRowID]) { t in
                t.column("attribute", .text).notNull()
                t.column("value", .text).notNull()
                t.column("userID", .text).notNull().indexed().references("users", onDelete: .cascade)
                t.primaryKey(["attribute", "value"])
            }
        }
        migrator.registerMigration("v6-social") { db in
            // Social sign-ins under way (state and one-time token looked up by hash) and linked provider accounts.
            try db.create(table: "social_logins") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("stateHash", .text).notNull().unique()
                t.column("provider", .text).notNull()
                t.column("clientID", .text).notNull()
                t.column("flow", .text).notNull()
                t.column("locale", .text).notNull()
                t.column("responseType", .text).notNull()
                t.column("returnURL", .text).notNull()
                t.column("nonce", .text).notNull()
                t.column("codeVerifier", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull().indexed()
                t.column("subject", .text)
                t.column("claims", .jsonText)
                t.column("tokenHash", .text).unique()
                t.column("tokenExpiresAt", .datetime)
                t.column("usedAt", .datetime)
            }
            try db.create(table: "identities", options: [.withoutRowID]) { t in
                t.column("provider", .text).notNull()
                t.column("subject", .text).notNull()
                t.column("userID", .text).notNull().indexed().references("users", onDelete: .cascade)
                t.column("email", .text)
                t.column("linkedAt", .datetime).notNull()
                t.column("lastUsedAt", .datetime)
                t.primaryKey(["provider", "subject"])
            }
        }
        migrator.registerMigration("v7-admin-audit") { db in
            // Admin API keys: only the SHA-256 of each key's secret part.
            try db.create(table: "admin_keys", options: [.withoutRowID]) { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("secretHash", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("revokedAt", .datetime)
            }
            // Who did what: read newest first, purged by age, filtered by actor, action or target.
            try db.create(table: "audit_log") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("at", .datetime).notNull().indexed()
                t.column("actor", .text).notNull()
                t.column("action", .text).notNull()
                t.column("target", .text).notNull()
                t.column("outcome", .text).notNull()
                t.column("detail", .text)
            }
            try db.create(index: "audit_log_target", on: "audit_log", columns: ["target", "id"])
        }
        migrator.registerMigration("v8-change-counters") { db in
            // A version per kind of cached row, bumped by triggers in the transaction of any change from any
            // connection or process (a capturectl, another instance): a cache compares it and drops what is stale.
            try db.create(table: "change_counters", options: [.withoutRowID]) { t in
                t.primaryKey("name", .text)
                t.column("version", .integer).notNull()
            }
            try db.execute(sql: "INSERT INTO change_counters (name, version) VALUES ('clients', 0)")
            for event in ["INSERT", "UPDATE", "DELETE"] {
                try db.execute(
                    sql: """
                        CREATE TRIGGER clients_changed_on_\(event.lowercased()) AFTER \(event) ON clients BEGIN
                        UPDATE change_counters SET version = version + 1 WHERE name = 'clients'; END
                        """)
            }
        }
        migrator.registerMigration("v9-tokens-by-user-and-chain") { db in
            // One index serves a user's tokens and a chain's (a chain belongs to one user): a refresh rotation
            // writes one random index page fewer into the WAL (issue 12).
            try db.create(index: "tokens_by_user_chain", on: "tokens", columns: ["userID", "chainID"])
            try db.drop(index: "tokens_on_userID")
            try db.drop(index: "tokens_on_chainID")
        }
        migrator.registerMigration("v10-account-standing") { db in
            // Who an account is and whether it is deactivated, without its row: a redemption and the checks that
            // need only that (introspection, /verify) read this small index instead of a random page of the users
            // table, whose rows hold the stored profiles (issue 12).
            try db.create(index: "users_standing", on: "users", columns: ["id", "email", "disabledAt"])
        }
        migrator.registerMigration("v11-social-binding") { db in
            // The starter's S256 challenge a travelled one-time token needs (InitiatorBinding), and whether a link's
            // provider vouched for the account's address (links made before this are not known to be vouched).
            try db.alter(table: "social_logins") { t in t.add(column: "initiatorChallenge", .text) }
            try db.alter(table: "identities") { t in t.add(column: "vouched", .boolean).notNull().defaults(to: false) }
        }
        migrator.registerMigration("v12-standing-with-proof") { db in
            // A token check also says whether the address is proven (/verify asserts only proven ones, introspection
            // says which): the standing index covers it, so the check still reads no users row.
            try db.drop(index: "users_standing")
            try db.create(index: "users_standing", on: "users", columns: ["id", "email", "disabledAt", "emailVerifiedAt"])
            try db.alter(table: "clients") { t in t.add(column: "allowUnverifiedEmail", .boolean).notNull().defaults(to: false) }
        }
        migrator.registerMigration("v13-outbox-deferral") { db in
            // How many times in a row the relay failed while a message waited: the outbox's pauses grow with it
            // (issue 27: a relay's failure defers the outbox, it never fails a message).
            try db.alter(table: "outbox") { t in t.add(column: "deferrals", .integer).notNull().defaults(to: 0) }
        }
        migrator.registerMigration("v14-code-address") { db in
            // The address a code was sent to: an address change's restore code is found by the old address, which
            // no account holds any more (issue 27: the old address can undo the change).
            try db.alter(table: "codes") { t in t.add(column: "address", .text) }
            try db.create(index: "codes_by_address", on: "codes", columns: ["address", "purpose"])
        }
        migrator.registerMigration("v15-passkeys-second-factors") { db in
            // Passkeys by credential id (base64url), the COSE public key as base64url text.
            try db.create(table: "passkeys") { t in
                t.primaryKey("credentialID", .text)
                t.column("userID", .text).notNull().indexed().references("users", onDelete: .cascade)
                t.column("name", .text).notNull()
                t.column("publicKey", .text).notNull()
                t.column("signCount", .integer).notNull()
                t.column("backupEligible", .boolean).notNull()
                t.column("backedUp", .boolean).notNull()
                t.column("transports", .jsonText).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("lastUsedAt", .datetime)
            }
            // Ceremonies under way by the hash of their secret; expired ones are purged through the index.
            try db.create(table: "ceremonies") { t in
                t.primaryKey("hash", .text)
                t.column("kind", .text).notNull()
                t.column("userID", .text).indexed().references("users", onDelete: .cascade)
                t.column("clientID", .text).notNull()
                t.column("payload", .text).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("createdAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull().indexed()
            }
            try db.create(table: "second_factors") { t in
                t.primaryKey("userID", .text).references("users", onDelete: .cascade)
                t.column("sealedSecret", .text).notNull()
                t.column("lastStep", .integer)
                t.column("recoveryHashes", .jsonText).notNull()
                t.column("createdAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v16-account-deletion") { db in
            // When the person deleted the account (erased once the grace period has passed); the purge finds the
            // due ones through the index.
            try db.alter(table: "users") { t in t.add(column: "deleteRequestedAt", .datetime) }
            try db.create(
                index: "users_deletion", on: "users", columns: ["deleteRequestedAt"],
                condition: Column("deleteRequestedAt") != nil)
        }
        migrator.registerMigration("v17-session-device") { db in
            // The device a chain's sign-in came from (`DeviceHint`), for the person's list of sessions.
            try db.alter(table: "tokens") { t in t.add(column: "device", .text) }
        }
        migrator.registerMigration("v18-provider-revocations") { db in
            // A provider's refresh token, sealed, from the sign-in to the link; and those waiting to be revoked.
            try db.alter(table: "social_logins") { t in t.add(column: "providerToken", .text) }
            try db.alter(table: "identities") { t in t.add(column: "providerToken", .text) }
            try db.create(table: "provider_revocations") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("provider", .text).notNull()
                t.column("sealedToken", .text).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("nextAttemptAt", .datetime).notNull()
                t.column("lastError", .text)
                t.column("queuedAt", .datetime).notNull()
            }
            try db.create(index: "provider_revocations_due", on: "provider_revocations", columns: ["nextAttemptAt"])
        }
        migrator.registerMigration("v19-client-pages") { db in
            // Janrain's site_name, verify_email_url and password_recover_url, for clients registered at run time too.
            try db.alter(table: "clients") { t in
                t.add(column: "siteName", .text)
                t.add(column: "verifyEmailURL", .text)
                t.add(column: "passwordRecoverURL", .text)
            }
        }
        migrator.registerMigration("v20-entity-filters") { db in
            // Janrain's filters and sorts on `created` and `lastUpdated` (`entity.find`, "everything updated since");
            // `number` (exports paging by `id > n`) has `users_by_number`. Profile attributes get theirs at startup,
            // from the schema (`prepareFilterIndexes`).
            try db.create(index: "users_by_creation", on: "users", columns: ["createdAt"])
            try db.create(index: "users_by_update", on: "users", columns: ["updatedAt"])
        }
        migrator.registerMigration("v21-client-settings") { db in
            // Janrain's client features and whitelist; the app's default settings and each client's own, which take
            // over v19's three columns (docs/adr/0063-client-settings-in-the-database.md). Existing clients are
            // apps' sign-in clients: login_client.
            try db.alter(table: "clients") { t in
                t.add(column: "features", .jsonText).notNull().defaults(to: #"["login_client"]"#)
                t.add(column: "whitelist", .jsonText).notNull().defaults(to: "[]")
            }
            try db.create(table: "default_settings", options: [.withoutRowID]) { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            try db.create(table: "client_settings", options: [.withoutRowID]) { t in
                t.column("clientID", .text).notNull().references("clients", onDelete: .cascade)
                t.column("key", .text).notNull()
                t.column("value", .text).notNull()
                t.primaryKey(["clientID", "key"])
            }
            for (column, key) in [
                ("siteName", "site_name"), ("verifyEmailURL", "verify_email_url"),
                ("passwordRecoverURL", "password_recover_url"),
            ] {
                try db.execute(
                    sql: """
                        INSERT INTO client_settings (clientID, key, value)
                        SELECT clientID, ?, \(column) FROM clients WHERE \(column) IS NOT NULL
                        """, arguments: [key])
                try db.alter(table: "clients") { t in t.drop(column: column) }
            }
            // A setting changes what a client's pages and mails show: it counts as a change of the clients.
            for table in ["default_settings", "client_settings"] {
                for event in ["INSERT", "UPDATE", "DELETE"] {
                    try db.execute(
                        sql: """
                            CREATE TRIGGER \(table)_changed_on_\(event.lowercased()) AFTER \(event) ON \(table) BEGIN
                            UPDATE change_counters SET version = version + 1 WHERE name = 'clients'; END
                            """)
                }
            }
        }
        migrator.registerMigration("v22-sealed-client-secrets") { db in
            // A client's secret sealed under the code key (`ClientSecrets`): Janrain-signed requests are checked with
            // the secret itself (docs/adr/0064-server-api-authentication.md).
            try db.alter(table: "clients") { t in t.add(column: "sealedSecret", .text) }
        }
        migrator.registerMigration("v23-retiring-client-secrets") { db in
            // The secret a client had before `clients/reset_secret` with `hours_to_live`, until it expires.
            try db.alter(table: "clients") { t in
                t.add(column: "retiringSecretHash", .text)
                t.add(column: "retiringSealedSecret", .text)
                t.add(column: "retiringSecretExpiresAt", .datetime)
            }
        }
        migrator.registerMigration("v24-user-number-floor") { db in
            // Janrain's ids are never given again: the highest number any record held (imported ones included),
            // kept when that record is deleted, so a new registration never takes an id at or below it.
            try db.execute(sql: "CREATE TABLE user_number_floor (highest INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO user_number_floor (highest) SELECT IFNULL(MAX(number), 0) FROM users")
            try db.execute(
                sql: """
                    CREATE TRIGGER users_number_floor AFTER INSERT ON users WHEN NEW.number IS NOT NULL BEGIN
                    UPDATE user_number_floor SET highest = MAX(highest, NEW.number); END
                    """)
        }
        migrator.registerMigration("v25-signing-keys") { db in
            // OpenID Connect's signing keys, sealed under the code key; one key per algorithm and generation, so
            // instances making the first key or rotating at once agree on one (docs/adr/0068-oidc-signing-keys.md).
            try db.create(table: "signing_keys", options: [.withoutRowID]) { t in
                t.primaryKey("kid", .text)
                t.column("alg", .text).notNull()
                t.column("generation", .integer).notNull()
                t.column("sealedKey", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("retireAt", .datetime)
                t.uniqueKey(["alg", "generation"])
            }
        }
        migrator.registerMigration("v26-oidc-grants") { db in
            // What an OpenID Connect sign-in adds to its token chain (`OIDCGrant`): ID tokens are made from it.
            try db.create(table: "oidc_grants") { t in
                t.primaryKey("chainID", .text)
                t.column("issuer", .text).notNull()
                t.column("clientID", .text).notNull()
                t.column("userID", .text).notNull().references("users", onDelete: .cascade)
                t.column("scopes", .text).notNull()
                t.column("nonce", .text)
                t.column("authTime", .datetime).notNull()
                t.column("methods", .text).notNull()
                t.column("acr", .text)
                t.column("sessionID", .text).notNull().indexed()
                t.column("expiresAt", .datetime).notNull().indexed()
            }
        }
        migrator.registerMigration("v27-webhooks") { db in
            // Webhook subscriptions, the events' outbox (one row per event and subscription, written in the
            // transaction of the change it reports) and each delivery attempt (docs/adr/0071-webhooks.md).
            try db.execute(
                sql: """
                    CREATE TABLE webhook_subscriptions (
                        id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL UNIQUE, endpoint TEXT NOT NULL,
                        events TEXT NOT NULL, clients TEXT NOT NULL, attributes TEXT NOT NULL,
                        includeValues BOOLEAN NOT NULL, enabled BOOLEAN NOT NULL, disabledReason TEXT,
                        signing TEXT NOT NULL, sealedSecret TEXT NOT NULL, sealedPreviousSecret TEXT,
                        previousSecretExpiresAt DATETIME, createdAt DATETIME NOT NULL, updatedAt DATETIME NOT NULL)
                    """)
            try db.execute(
                sql: """
                    CREATE TABLE webhook_events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, messageID TEXT NOT NULL,
                        subscriptionID TEXT NOT NULL REFERENCES webhook_subscriptions ON DELETE CASCADE,
                        type TEXT NOT NULL, userID TEXT, payload TEXT NOT NULL, status TEXT NOT NULL,
                        attempts INTEGER NOT NULL, nextAttemptAt DATETIME NOT NULL, createdAt DATETIME NOT NULL,
                        deliveredAt DATETIME, lastError TEXT)
                    """)
            try db.execute(
                sql: "CREATE INDEX webhook_events_waiting ON webhook_events (status, nextAttemptAt) WHERE status = 'pending'")
            try db.execute(sql: "CREATE INDEX webhook_events_by_user ON webhook_events (subscriptionID, userID, id)")
            try db.execute(sql: "CREATE INDEX webhook_events_by_message ON webhook_events (messageID)")
            try db.execute(sql: "CREATE INDEX webhook_events_by_creation ON webhook_events (createdAt)")
            try db.execute(
                sql: """
                    CREATE TABLE webhook_attempts (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        eventID INTEGER NOT NULL REFERENCES webhook_events ON DELETE CASCADE,
                        at DATETIME NOT NULL, status INTEGER, milliseconds INTEGER NOT NULL, error TEXT)
                    """)
            try db.execute(sql: "CREATE INDEX webhook_attempts_by_event ON webhook_attempts (eventID)")
        }
        return migrator
    }
}
