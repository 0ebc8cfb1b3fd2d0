import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// JSON replies in the contract's shapes. The one place a `CaptureError` becomes a status and a body.
enum Reply {
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        json(bytes: value.encodedBytes(), status: status)
    }

    /// An admin view (`TokenView`, `AdminList<UserView>`, …) as the admin API's JSON (`AdminViews.document`).
    static func view(_ view: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        json(try AdminViews.document(view), status: status)
    }

    /// A reply whose JSON is written already.
    static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        // Replies can carry tokens: never cache them.
        headers[.cacheControl] = "no-store"
        headers[.pragma] = "no-cache"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A public document that holds no token (the associated-domain files): cacheable for `maxAge` seconds, and without
    /// `json`'s `Pragma: no-cache`, which HTTP/1.0 caches read as "never cache" beside a `Cache-Control` that allows it.
    static func cacheable(_ value: JSONValue, maxAge: Int) -> Response {
        var response = json(value)
        response.headers[.cacheControl] = "public, max-age=\(maxAge)"
        response.headers[.pragma] = nil
        return response
    }

    /// `{"stat":"ok", …}` (Janrain).
    static func ok(_ fields: [String: JSONValue] = [:]) -> Response {
        json(.object(fields.merging(["stat": "ok"]) { _, new in new }))
    }

    /// `{"result":…,"stat":"ok"}` around JSON written already (keys in `JSONWriter`'s order).
    static func ok(result: [UInt8]) -> Response {
        var bytes = Array(#"{"result":"#.utf8)
        bytes.reserveCapacity(result.count + 24)
        bytes.append(contentsOf: result)
        bytes.append(contentsOf: #","stat":"ok"}"#.utf8)
        return json(bytes: bytes)
    }

    /// The Capture API answers as Janrain did: HTTP 200 with `"stat":"error"` for every error about what the
    /// request asks (Janrain's SDKs treat any other status as a broken reply and never read the code), and an
    /// HTTP error only when the request itself cannot be read or the service fails.
    static func captureStatus(of error: CaptureError) -> HTTPResponse.Status {
        switch error {
        case .malformedRequest: .badRequest
        case .requestTooLarge: .contentTooLarge
        case .unsupportedContentType: .unsupportedMediaType
        case .unexpected: .internalServerError
        case .storageUnavailable: .serviceUnavailable
        default: .ok
        }
    }

    /// HTTP statuses for the standard OAuth endpoints (RFC 6749 §5.2 and friends).
    static func status(of error: CaptureError) -> HTTPResponse.Status {
        switch error {
        case .invalidCredentials, .invalidClient, .adminKeyRequired, .invalidAccessToken, .accessTokenExpired: .unauthorized
        case .notPermitted, .recentSignInRequired, .accountDeactivated, .accountDeleted: .forbidden
        case .recordNotFound: .notFound
        case .rateLimited: .tooManyRequests
        case .requestTooLarge: .contentTooLarge
        case .unsupportedContentType: .unsupportedMediaType
        case .unexpected: .internalServerError
        case .storageUnavailable: .serviceUnavailable
        default: .badRequest
        }
    }

    /// Janrain's error shape: `stat`, `code`, `error`, `error_description`, plus `invalid_fields` or
    /// `expected_value`/`supplied_value` where they apply.
    static func captureError(_ error: CaptureError, messages: Messages? = nil) -> Response {
        json(captureErrorBody(error, messages: messages), status: captureStatus(of: error))
    }

    /// The body of `captureError`, for replies written below the router (`RequestGuardHandler`); the description in
    /// the language of `messages` when given.
    static func captureErrorBody(_ error: CaptureError, messages: Messages? = nil) -> JSONValue {
        var body: [String: JSONValue] = [
            "stat": "error", "code": .int(Int64(error.code)), "error": .string(error.error),
            "error_description": .string(error.localizedDescription(messages)),
        ]
        switch error {
        case .invalidFormFields(let fields):
            body["invalid_fields"] = .object(fields.mapValues { .array($0.map(JSONValue.string)) })
        case .emailAddressInUse(let field):
            body["invalid_fields"] = [field: [.string(error.localizedDescription(messages))]]
        case .redirectURIMismatch(let expected, let supplied):
            body["expected_value"] = .string(expected)
            body["supplied_value"] = .string(supplied)
        case .schemaViolation(let violation):
            body["attribute_name"] = .string(violation.path)
        case .registrationRequired(let prefill):
            body["prereg_fields"] = .object(prefill.mapValues(JSONValue.string))
        case .mergeRequired(let provider, let email):
            body["existing_provider"] = .string(provider)
            if let email { body["existing_email"] = .string(email) }
        case .invalidArgument(let name, _), .malformedRequest(let name, _), .missingArgument(let name),
            .duplicateArgument(let name, _):
            // `argument_name` is Janrain's; `argument`, the same value, what this service's pages read.
            body["argument"] = .string(name)
            body["argument_name"] = .string(name)
        case .secondFactorRequired(let ticket):
            body["second_factor_ticket"] = .string(ticket)
        case .termsNotAccepted(let ticket, let documents):
            if let ticket { body["terms_ticket"] = .string(ticket) }
            body["documents"] = .array(
                documents.map {
                    ["id": .string($0.id), "version": .string($0.version), "title": .string($0.title), "url": .string($0.url)]
                })
        case .accountDeleted(let reactivateUntil):
            body["reactivate_until"] = .string(CaptureDate.format(reactivateUntil))
        default:
            break
        }
        return .object(body)
    }

    /// Janrain Engage's error shape (`/signin/oauth_token`): `{"stat":"fail","err":{"code","msg"}}` with Engage's
    /// codes — 0 missing parameter, 1 invalid parameter, 3 authentication error, -1 the service failed.
    static func engageError(_ error: CaptureError) -> Response {
        let code: Int64
        switch error {
        case .missingArgument: code = 0
        case .notPermitted, .recentSignInRequired, .accountDeactivated, .accountDeleted: code = 3
        case .unexpected, .storageUnavailable: code = -1
        default: code = 1
        }
        return json(
            ["stat": "fail", "err": ["code": .int(code), "msg": .string(error.errorDescription)]],
            status: captureStatus(of: error))
    }

    /// BrowserID's failure receipt (`/verify`): 400 for a request it cannot act on, where the Capture API says 200.
    static func verifyError(_ error: CaptureError) -> Response {
        let transport = captureStatus(of: error)
        let reason = error.code == 100 ? "need assertion and audience" : error.errorDescription
        return json(VerifyReceipt.failure(reason: reason).json, status: transport == .ok ? .badRequest : transport)
    }

    /// RFC 9457 problem details (the admin API, health, metrics): `type`, `title`, `status`, `detail`, with
    /// Janrain's `error` and `code` as extension members and `argument` where one argument is at fault.
    static func problem(_ error: CaptureError, status: HTTPResponse.Status? = nil) -> Response {
        let status = status ?? self.status(of: error)
        var body: [String: JSONValue] = [
            "type": "about:blank", "title": .string(status.reasonPhrase), "status": .int(Int64(status.code)),
            "detail": .string(error.errorDescription), "error": .string(error.error), "code": .int(Int64(error.code)),
        ]
        if case .invalidArgument(let name, _) = error { body["argument"] = .string(name) }
        if case .missingArgument(let name) = error { body["argument"] = .string(name) }
        var response = json(.object(body), status: status)
        response.headers[.contentType] = "application/problem+json"
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer realm=\"capture-bridge-admin\"" }
        return response
    }

    /// RFC 6749 §5.2 shape (`error` is the OAuth code), with Janrain's `stat`/`code` alongside.
    static func oauthError(_ error: CaptureError) -> Response {
        let oauthCode: String
        switch error {
        case .invalidClient: oauthCode = "invalid_client"
        // An address the client requires proven (112, `code` says so): the grant stands once it is proven.
        case .invalidGrant, .authorizationCodeExpired, .invalidAccessToken, .accessTokenExpired, .redirectURIMismatch,
            .emailNotVerified:
            oauthCode = "invalid_grant"
        case .unsupportedGrantType: oauthCode = "unsupported_grant_type"
        case .notPermitted, .recentSignInRequired, .accountDeactivated, .accountDeleted: oauthCode = "unauthorized_client"
        case .rateLimited: oauthCode = "slow_down"
        case .unexpected: oauthCode = "server_error"
        case .storageUnavailable: oauthCode = "temporarily_unavailable"
        default: oauthCode = "invalid_request"
        }
        // RFC 6749: 401 only for client authentication; a bad grant is a 400.
        let isClientFailure = oauthCode == "invalid_client"
        let status = isClientFailure ? .unauthorized : (status(of: error) == .unauthorized ? .badRequest : status(of: error))
        var response = json(
            [
                "error": .string(oauthCode), "error_description": .string(error.errorDescription), "stat": "error",
                "code": .int(Int64(error.code)),
            ],
            status: status)
        if isClientFailure {
            response.headers[.wwwAuthenticate] = "Basic realm=\"capture-bridge\""
        }
        return response
    }
}
