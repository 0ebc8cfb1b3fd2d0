import ArgumentParser
import CaptureCore
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
            try await options.withService { service, output in
                let entries = try await service.listMail(limit: limit)
                output.list(
                    ["ID", "KIND", "TO", "STATUS", "ATTEMPTS", "CREATED", "LAST ERROR"],
                    rows: entries.map {
                        ["\($0.id ?? 0)", $0.kind.rawValue, $0.recipient, $0.status.rawValue, "\($0.attempts)", iso($0.createdAt),
                         $0.lastError ?? "-"]
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
            try await options.withService { service, output in
                let entry = try await service.findMail(id)
                var pairs = mailPairs(entry)
                if body { pairs.append(("body", entry.text ?? "(forgotten: delivered or expired)")) }
                output.record(pairs, object: mailJSON(entry, body: body))
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry", abstract: "Make a failed or waiting message due again now (while its code lives).")

        @Argument(help: "The message's id (see mail list).")
        var id: Int64
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withService { service, output in
                let entry = try await service.retryMail(id)
                output.message("message \(id) is due again", object: mailJSON(entry, body: false))
            }
        }
    }
}

func mailPairs(_ entry: OutboxEntry) -> [(String, String)] {
    [
        ("id", "\(entry.id ?? 0)"), ("message-id", entry.messageID), ("kind", entry.kind.rawValue), ("to", entry.recipient),
        ("subject", entry.subject), ("status", entry.status.rawValue), ("attempts", "\(entry.attempts)"),
        ("next attempt", entry.status == .pending ? iso(entry.nextAttemptAt) : "-"), ("last error", entry.lastError ?? "-"),
        ("created", iso(entry.createdAt)), ("sent", iso(entry.sentAt)),
        ("body kept until", entry.text == nil ? "-" : iso(entry.bodyExpiresAt)),
    ]
}

func mailJSON(_ entry: OutboxEntry, body: Bool) -> JSONValue {
    var object: [String: JSONValue] = [
        "id": .int(entry.id ?? 0), "messageId": .string(entry.messageID), "kind": .string(entry.kind.rawValue),
        "to": .string(entry.recipient), "subject": .string(entry.subject), "status": .string(entry.status.rawValue),
        "attempts": .int(Int64(entry.attempts)), "lastError": .optional(entry.lastError),
        "created": .string(iso(entry.createdAt)), "sent": .optional(entry.sentAt.map(iso)),
        "bodyKept": .bool(entry.text != nil),
    ]
    if body { object["text"] = .optional(entry.text) }
    return .object(object)
}
