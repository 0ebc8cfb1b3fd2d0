import CCurl
import CaptureCore

/// How a failed SMTP transfer becomes a `MailAttemptFailure`: whom it concerns, and whether sending the same message
/// to the same relay again can succeed.
///
/// libcurl tells the stages apart: no connection (`CURLE_COULDNT_CONNECT`), a timeout, TLS (`CURLE_SSL_*`,
/// `CURLE_PEER_FAILED_VERIFICATION`), no STARTTLS (`CURLE_USE_SSL_FAILED`), the greeting or EHLO refused
/// (`CURLE_WEIRD_SERVER_REPLY`, `CURLE_REMOTE_ACCESS_DENIED`), the login refused (`CURLE_LOGIN_DENIED`, 535 or 454),
/// and a refused command (`CURLE_SEND_ERROR`, its diagnostic naming it: "MAIL failed: 530", "RCPT failed: 550",
/// "DATA failed: 554"); `CURLINFO_RESPONSE_CODE` is the reply code that ended it, and the reply line itself carries
/// the enhanced status code (RFC 3463, "5.1.1").
///
/// Only a reply to RCPT TO is about the recipient: a 5xx refuses it (the message fails), a 4xx defers it (the message
/// waits alone), unless its enhanced status code puts the cause elsewhere (X.7 policy such as "relay access denied"
/// or a sender the login may not use, X.1.7/X.1.8 the sender's address, X.3–X.6 the relay's system, network,
/// protocol or content): then, like everything else, it is the relay's, and the whole outbox waits, never failing.
enum SMTPFailure {
    static func failure(for outcome: CurlOutcome) -> MailAttemptFailure {
        let code = CURLcode(outcome.code)
        let reply = outcome.lastServerReply.map { " (server said: \($0))" } ?? ""
        func relay(_ reason: String) -> MailAttemptFailure {
            MailAttemptFailure(MailDeliveryError(reason: reason, isPermanent: false), scope: .relay)
        }
        if outcome.cancelled { return relay("the delivery was cancelled") }
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST:
            return relay("could not connect to the SMTP relay: \(outcome.errorText)")
        case CURLE_OPERATION_TIMEDOUT:
            return relay("the SMTP relay timed out: \(outcome.errorText)\(reply)")
        case CURLE_LOGIN_DENIED:
            // 535 (wrong credentials), 454 (a temporary failure) or no code (no mechanism in common): the relay's
            // settings, never this message's. The message waits for a password that works.
            let status = outcome.responseCode > 0 ? "\(outcome.responseCode)" : outcome.errorText
            return relay("the SMTP relay refused the login: \(status)\(reply)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_CLIENTCERT:
            return relay("TLS with the SMTP relay failed: \(outcome.errorText)")
        case CURLE_USE_SSL_FAILED:
            return relay("the SMTP relay does not offer STARTTLS: \(outcome.errorText)\(reply)")
        case CURLE_SEND_ERROR where outcome.errorText.hasPrefix("RCPT failed"):
            return recipientRefusal(outcome, reply: reply)
        default:
            break
        }
        if (400..<600).contains(outcome.responseCode) {
            return relay("the SMTP relay refused the message: \(outcome.errorText)\(reply)")
        }
        return relay("SMTP delivery failed: \(outcome.errorText)\(reply)")
    }

    /// A 4xx or 5xx to RCPT TO.
    private static func recipientRefusal(_ outcome: CurlOutcome, reply: String) -> MailAttemptFailure {
        let what = "\(outcome.errorText)\(reply)"
        if let enhanced = outcome.lastServerReply.flatMap(enhancedStatus), !concernsRecipient(enhanced) {
            return MailAttemptFailure(
                MailDeliveryError(
                    reason: "the SMTP relay refused the recipient for a reason not its own: \(what)", isPermanent: false),
                scope: .relay)
        }
        if (500..<600).contains(outcome.responseCode) {
            return MailAttemptFailure(
                MailDeliveryError(reason: "the SMTP relay refused the recipient: \(what)", isPermanent: true), scope: .message)
        }
        return MailAttemptFailure(
            MailDeliveryError(reason: "the SMTP relay deferred the recipient: \(what)", isPermanent: false), scope: .message)
    }

    /// RFC 3463: X.1 addressing (but X.1.7 and X.1.8, the sender's) and X.2 mailbox status are about the recipient.
    static func concernsRecipient(_ status: (subject: Int, detail: Int)) -> Bool {
        switch status.subject {
        case 1: return status.detail != 7 && status.detail != 8
        case 2: return true
        default: return false
        }
    }

    /// The enhanced status code after a reply's code ("550 5.1.1 no such user" → (1, 1)), if it has one.
    static func enhancedStatus(_ line: String) -> (subject: Int, detail: Int)? {
        let text = line.drop { $0.isNumber }.drop { $0 == " " || $0 == "-" }
        let token = text.prefix { !$0.isWhitespace }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, ["2", "4", "5"].contains(parts[0]),
            let subject = Int(parts[1]), let detail = Int(parts[2]), parts[1].count <= 3, parts[2].count <= 3
        else { return nil }
        return (subject, detail)
    }
}
