import ArgumentParser
import CaptureCore
import CaptureJSON
import Foundation

/// `capturectl mail …`: the outbox. Bodies carry live codes, so `show` prints one only when asked (`--body`).
struct MailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail",
        abstract: "Read the outbox (every message the service sends, with its delivery status) and resend.",
        subcommands: [List.self, Show.self, Retry.self])
}

extension MailCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List messages, newest first.")

        @Option(help: "At most this many messages.")
        var limit = 100
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be above 0") }
        }

        func run() async throws {
            try await options.withFeatures { features, output in
                let entries = try await features.admin.listMail(limit: limit)
                // A waiting message shows when it is tried next, and why it waits (its last error).
                output.list(
                    ["ID", "KIND", "TO", "STATUS", "ATTEMPTS", "NEXT ATTEMPT", "CREATED", "LAST ERROR"],
                    rows: entries.map {
                        [
                            "\($0.id ?? 0)", $0.kind.rawValue, $0.recipient, $0.status.rawValue, "\($0.attempts)",
                            $0.isWaiting ? iso($0.nextAttemptAt) : "-", iso($0.createdAt), $0.lastError ?? "-",
                        ]
                    },
                    objects: entries.map { mailJSON($0, body: false) })
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one message by id.")

        @Argument(help: "The message's id (see mail list).")
        var id: Int64
        @Flag(help: "Also print the text body while it is kept (it holds a live code).")
        var body = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withFeatures { features, output in
                let entry = try await features.admin.findMail(id)
                var pairs = mailPairs(entry)
                if body { pairs.append(("body", entry.text ?? "(forgotten: delivered or expired)")) }
                output.record(pairs, object: mailJSON(entry, body: body))
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract:
                "Make a failed or waiting message due again now (while its code lives), and with it every message waiting for the relay."
        )

        @Argument(help: "The message's id (see mail list).")
        var id: Int64
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withFeatures { features, output in
                let retry = try await features.admin.retryMail(id)
                var object = mailObject(retry.entry, body: false)
                object["othersResumed"] = .int(Int64(retry.othersResumed))
                object["relayConfigured"] = .bool(retry.relayConfigured)
                output.message(retryText(retry), object: .object(object))
            }
        }
    }
}

/// What `mail retry` did, in one line: the message is queued, what else is, and what happens next.
func retryText(_ retry: MailRetry) -> String {
    let id = retry.entry.id ?? 0
    var text = "message \(id) is queued again, due now"
    if let relayError = retry.relayError {
        text += " (it was waiting for the SMTP relay: \(relayError))"
    } else if let lastError = retry.entry.lastError {
        text += " (its last attempt: \(lastError))"
    }
    switch retry.othersResumed {
    case 0: break
    case 1: text += "; so is 1 other message that was waiting for the SMTP relay"
    default: text += "; so are \(retry.othersResumed) other messages that were waiting for the SMTP relay"
    }
    text += "; its code is valid until \(iso(retry.entry.bodyExpiresAt))."
    if retry.relayConfigured {
        text +=
            " The service tries it at its next delivery pass (within \(MailDelivery.pollInterval.components.seconds) s while it runs)."
    } else {
        text += " No SMTP relay is configured (mail.smtp in the settings): it waits in the outbox until one is."
    }
    return text
}

func mailPairs(_ entry: OutboxEntry) -> [(String, String)] {
    [
        ("id", "\(entry.id ?? 0)"), ("message-id", entry.messageID), ("kind", entry.kind.rawValue), ("to", entry.recipient),
        ("subject", entry.subject), ("status", entry.status.rawValue), ("attempts", "\(entry.attempts)"),
        ("next attempt", entry.isWaiting ? iso(entry.nextAttemptAt) : "-"), ("last error", entry.lastError ?? "-"),
        ("relay deferrals", "\(entry.deferrals)"),
        ("created", iso(entry.createdAt)), ("sent", iso(entry.sentAt)),
        ("body kept until", entry.text == nil ? "-" : iso(entry.bodyExpiresAt)),
    ]
}

func mailJSON(_ entry: OutboxEntry, body: Bool) -> JSONValue {
    .object(mailObject(entry, body: body))
}

func mailObject(_ entry: OutboxEntry, body: Bool) -> [String: JSONValue] {
    var object: [String: JSONValue] = [
        "id": .int(entry.id ?? 0), "messageId": .string(entry.messageID), "kind": .string(entry.kind.rawValue),
        "to": .string(entry.recipient), "subject": .string(entry.subject), "status": .string(entry.status.rawValue),
        "attempts": .int(Int64(entry.attempts)), "lastError": .optional(entry.lastError),
        "nextAttempt": .optional(entry.isWaiting ? iso(entry.nextAttemptAt) : nil), "deferrals": .int(Int64(entry.deferrals)),
        "created": .string(iso(entry.createdAt)), "sent": .optional(entry.sentAt.map(iso)),
        "bodyKept": .bool(entry.text != nil),
    ]
    if body { object["text"] = .optional(entry.text) }
    return object
}
