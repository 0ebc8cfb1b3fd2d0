import CCurl
import CaptureCore

/// How a failed SMTP transfer becomes a `MailDeliveryError`. Permanent means sending the same message to the same
/// relay again cannot succeed: the server answered 5xx (to MAIL, RCPT, DATA, the message, or the login). Everything
/// else (no connection, a timeout, a 4xx, a TLS failure, a cancelled task) is temporary and left to the outbox.
enum SMTPFailure {
    static func error(for outcome: CurlOutcome) -> MailDeliveryError {
        let code = CURLcode(outcome.code)
        let reply = outcome.lastServerReply.map { " (server said: \($0))" } ?? ""
        if outcome.cancelled {
            return MailDeliveryError(reason: "the delivery was cancelled", isPermanent: false)
        }
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST:
            return MailDeliveryError(
                reason: "could not connect to the SMTP relay: \(outcome.errorText)", isPermanent: false)
        case CURLE_OPERATION_TIMEDOUT:
            return MailDeliveryError(
                reason: "the SMTP relay timed out: \(outcome.errorText)\(reply)", isPermanent: false)
        case CURLE_LOGIN_DENIED:
            // 454 is a temporary authentication failure; 535 (or no code at all) means the credentials are wrong.
            let temporary = (400..<500).contains(outcome.responseCode)
            return MailDeliveryError(
                reason: "the SMTP relay refused the login: \(outcome.responseCode)\(reply)", isPermanent: !temporary)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE:
            return MailDeliveryError(reason: "TLS with the SMTP relay failed: \(outcome.errorText)", isPermanent: false)
        case CURLE_USE_SSL_FAILED:
            return MailDeliveryError(reason: "the SMTP relay does not offer STARTTLS\(reply)", isPermanent: false)
        default:
            break
        }
        if (500..<600).contains(outcome.responseCode) {
            return MailDeliveryError(
                reason: "the SMTP relay refused the message: \(outcome.errorText)\(reply)", isPermanent: true)
        }
        return MailDeliveryError(reason: "SMTP delivery failed: \(outcome.errorText)\(reply)", isPermanent: false)
    }
}
