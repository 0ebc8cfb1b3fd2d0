import CaptureCore
import Foundation
import PostgresNIO

/// The copy's inserts: every column, generated ids given (`OVERRIDING SYSTEM VALUE`), in the encodings the
/// repositories write (lists as `text[]` or space-separated words, JSON as text, bytes as base64url).
extension PostgresRecordCopy {
    static func statements(_ page: CopiedPage) throws -> [PostgresQuery] {
        switch page {
        case .users(let users):
            return users.map { u in
                """
                INSERT INTO users (id, number, email, password_hash, profile, last_element_id, email_verified_at,
                    created_at, updated_at, last_login_at, disabled_at, delete_requested_at)
                VALUES (\(u.id), \(u.number), \(u.email), \(u.passwordHash), \(StoredJSON.text(u.profile)),
                    \(u.lastElementID), \(u.emailVerifiedAt), \(u.createdAt), \(u.updatedAt), \(u.lastLoginAt),
                    \(u.disabledAt), \(u.deleteRequestedAt))
                """
            }
        case .userUnique(let claims):
            return claims.map { c in
                "INSERT INTO user_unique (attribute, value, user_id) VALUES (\(c.attribute), \(c.value), \(c.userID))"
            }
        case .userNumberFloor(let floors):
            // The table holds its one row from the start (and inserted users have raised it): raised, not added.
            return floors.map { "UPDATE user_number_floor SET highest = GREATEST(highest, \($0))" }
        case .clients(let clients):
            return clients.map { c in
                """
                INSERT INTO clients (client_id, name, secret_hash, redirect_uris, allowed_origins, response_types,
                    legacy_token_url, access_token_life_hours, keep_sessions_on_password_change, require_verified_email,
                    allow_unverified_email, features, whitelist, sealed_secret, retiring_secret_hash,
                    retiring_sealed_secret, retiring_secret_expires_at, created_at)
                VALUES (\(c.clientID), \(c.name), \(c.secretHash), \(c.redirectURIs), \(c.allowedOrigins),
                    \(c.responseTypes.map(\.rawValue)), \(c.legacyTokenURL), \(c.accessTokenLifeHours),
                    \(c.keepSessionsOnPasswordChange), \(c.requireVerifiedEmail), \(c.allowUnverifiedEmail),
                    \(c.features.sorted().map(\.rawValue)), \(c.whitelist), \(c.sealedSecret), \(c.retiringSecret?.hash),
                    \(c.retiringSecret?.sealed), \(c.retiringSecret?.expiresAt), \(c.createdAt))
                """
            }
        case .defaultSettings(let settings):
            return settings.map { "INSERT INTO default_settings (key, value) VALUES (\($0.key), \($0.value))" }
        case .clientSettings(let settings):
            return try settings.map { setting -> PostgresQuery in
                guard case .client(let clientID) = setting.scope else {
                    throw CaptureError.unexpected("a default setting among the clients' own")
                }
                return """
                    INSERT INTO client_settings (client_id, key, value) VALUES (\(clientID), \(setting.key), \(setting.value))
                    """
            }
        case .tokens(let tokens):
            return tokens.map { t in
                """
                INSERT INTO tokens (id, kind, hash, user_id, client_id, chain_id, scope, auth_provider, issued_at,
                    expires_at, used_at, revoked_at, refresh_secret, redirect_uri, code_challenge, device)
                OVERRIDING SYSTEM VALUE
                VALUES (\(t.id), \(t.kind.rawValue), \(t.hash), \(t.userID), \(t.clientID), \(t.chainID), \(t.scope),
                    \(t.authProvider), \(t.issuedAt), \(t.expiresAt), \(t.usedAt), \(t.revokedAt), \(t.refreshSecret),
                    \(t.redirectURI), \(t.codeChallenge), \(t.device))
                """
            }
        case .throttle(let counters):
            return counters.map { t in
                """
                INSERT INTO throttle (key, level, updated_at, expires_at)
                VALUES (\(t.key), \(t.state.level), \(t.state.updatedAt), \(t.state.expiresAt))
                """
            }
        case .codes(let codes):
            return codes.map { c in
                """
                INSERT INTO codes (id, purpose, user_id, hash, address, created_at, expires_at, attempts, used_at)
                OVERRIDING SYSTEM VALUE
                VALUES (\(c.id), \(c.purpose.rawValue), \(c.userID), \(c.hash), \(c.address), \(c.createdAt),
                    \(c.expiresAt), \(c.attempts), \(c.usedAt))
                """
            }
        case .outbox(let entries):
            return entries.map { e in
                """
                INSERT INTO outbox (id, message_id, kind, recipient, user_id, subject, text, html, status, attempts,
                    next_attempt_at, last_error, deferrals, created_at, sent_at, body_expires_at)
                OVERRIDING SYSTEM VALUE
                VALUES (\(e.id), \(e.messageID), \(e.kind.rawValue), \(e.recipient), \(e.userID), \(e.subject),
                    \(e.text), \(e.html), \(e.status.rawValue), \(e.attempts), \(e.nextAttemptAt), \(e.lastError),
                    \(e.deferrals), \(e.createdAt), \(e.sentAt), \(e.bodyExpiresAt))
                """
            }
        case .socialLogins(let logins):
            return logins.map { l in
                """
                INSERT INTO social_logins (id, state_hash, provider, client_id, flow, locale, response_type, return_url,
                    nonce, code_verifier, created_at, expires_at, subject, claims, token_hash, token_expires_at, used_at,
                    initiator_challenge, provider_token)
                OVERRIDING SYSTEM VALUE
                VALUES (\(l.id), \(l.stateHash), \(l.provider), \(l.clientID), \(l.flow), \(l.locale),
                    \(ResponseType.storedName(of: l.responseType)), \(l.returnURL), \(l.nonce), \(l.codeVerifier), \(l.createdAt), \(l.expiresAt),
                    \(l.subject), \(l.claims.map(StoredJSON.text)), \(l.tokenHash), \(l.tokenExpiresAt), \(l.usedAt),
                    \(l.initiatorChallenge), \(l.providerToken))
                """
            }
        case .identities(let identities):
            return identities.map { i in
                """
                INSERT INTO identities (provider, subject, user_id, email, vouched, linked_at, last_used_at,
                    provider_token)
                VALUES (\(i.provider), \(i.subject), \(i.userID), \(i.email), \(i.vouched), \(i.linkedAt),
                    \(i.lastUsedAt), \(i.providerToken))
                """
            }
        case .providerRevocations(let revocations):
            return revocations.map { r in
                """
                INSERT INTO provider_revocations (id, provider, sealed_token, attempts, next_attempt_at, last_error,
                    queued_at)
                VALUES (\(r.id), \(r.provider), \(r.sealedToken), \(r.attempts), \(r.nextAttemptAt), \(r.lastError),
                    \(r.queuedAt))
                """
            }
        case .passkeys(let passkeys):
            return passkeys.map { p in
                """
                INSERT INTO passkeys (credential_id, user_id, name, public_key, sign_count, backup_eligible, backed_up,
                    transports, created_at, last_used_at)
                VALUES (\(p.credentialID), \(p.userID), \(p.name), \(Data(p.publicKey).base64URLEncoded()),
                    \(Int64(p.signCount)), \(p.backupEligible), \(p.backedUp), \(p.transports), \(p.createdAt),
                    \(p.lastUsedAt))
                """
            }
        case .ceremonies(let ceremonies):
            return ceremonies.map { c in
                """
                INSERT INTO ceremonies (hash, kind, user_id, client_id, payload, attempts, created_at, expires_at)
                VALUES (\(c.hash), \(c.kind.rawValue), \(c.userID), \(c.clientID), \(c.payload), \(c.attempts),
                    \(c.createdAt), \(c.expiresAt))
                """
            }
        case .secondFactors(let factors):
            return factors.map { f in
                """
                INSERT INTO second_factors (user_id, sealed_secret, last_step, recovery_hashes, created_at)
                VALUES (\(f.userID), \(f.sealedSecret), \(f.lastStep), \(f.recoveryHashes), \(f.createdAt))
                """
            }
        case .oidcGrants(let grants):
            return grants.map { g in
                """
                INSERT INTO oidc_grants (chain_id, issuer, client_id, user_id, scopes, nonce, auth_time, methods, acr,
                    session_id, expires_at)
                VALUES (\(g.chainID), \(g.issuer), \(g.clientID), \(g.userID), \(g.scopes.joined(separator: " ")),
                    \(g.nonce), \(g.authTime), \(g.methods.joined(separator: " ")), \(g.acr), \(g.sessionID),
                    \(g.expiresAt))
                """
            }
        case .adminKeys(let keys):
            return keys.map { k in
                """
                INSERT INTO admin_keys (id, name, secret_hash, created_at, revoked_at)
                VALUES (\(k.id), \(k.name), \(k.secretHash), \(k.createdAt), \(k.revokedAt))
                """
            }
        case .signingKeys(let keys):
            return keys.map { k in
                """
                INSERT INTO signing_keys (kid, alg, generation, sealed_key, created_at, retire_at)
                VALUES (\(k.kid), \(k.algorithm.rawValue), \(k.generation), \(k.sealedKey), \(k.createdAt),
                    \(k.retireAt))
                """
            }
        case .auditLog(let entries):
            return entries.map { e in
                """
                INSERT INTO audit_log (id, at, actor, action, target, outcome, detail) OVERRIDING SYSTEM VALUE
                VALUES (\(e.id), \(e.at), \(e.actor), \(e.action), \(e.target), \(e.outcome), \(e.detail))
                """
            }
        case .webhookSubscriptions(let subscriptions):
            return subscriptions.map(PostgresWebhookRepository.insertion)
        case .webhookEvents(let events):
            return events.map { e in
                """
                INSERT INTO webhook_events (id, message_id, subscription_id, type, user_id, payload, status, attempts,
                    next_attempt_at, created_at, delivered_at, last_error)
                OVERRIDING SYSTEM VALUE
                VALUES (\(e.sequence), \(e.id), \(e.subscriptionID), \(e.type.rawValue), \(e.userID), \(e.payload),
                    \(e.status.rawValue), \(e.attempts), \(e.nextAttemptAt), \(e.createdAt), \(e.deliveredAt),
                    \(e.lastError))
                """
            }
        case .webhookAttempts(let attempts):
            return attempts.map { a in
                """
                INSERT INTO webhook_attempts (id, event_id, at, status, milliseconds, error) OVERRIDING SYSTEM VALUE
                VALUES (\(a.id), \(a.attempt.eventSequence), \(a.attempt.at), \(a.attempt.status),
                    \(a.attempt.milliseconds), \(a.attempt.error))
                """
            }
        }
    }
}
