import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl webhook …`
struct WebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook",
        abstract: "Webhook subscriptions (Janrain's Webhooks v3, signed as Standard Webhooks): add, list, show, update, "
            + "remove, rotate-secret, test; the events' history and redelivery.",
        subcommands: [
            Add.self, List.self, Show.self, Update.self, Remove.self, RotateSecret.self, Test.self, Events.self, Event.self,
            Redeliver.self,
        ])

    static let columns: [Output.Column] = [
        .init("ID", "id"), .init("TITLE", "title"), .init("ENDPOINT", "endpoint"), .init("EVENTS", "events"),
        .init("ENABLED", "enabled"), .init("SIGNING", "signing"),
    ]
    static let fields = [
        "id", "title", "endpoint", "events", "clients", "attributes", "include_values", "enabled", "disabled_reason",
        "signing", "public_key", "previous_secret_expires_at", "created_at", "updated_at",
    ]
    static let eventColumns: [Output.Column] = [
        .init("EVENT", "id"), .init("SEQ", "sequence"), .init("TYPE", "type"), .init("USER", "user"), .init("STATUS", "status"),
        .init("ATTEMPTS", "attempts"), .init("CREATED", "created_at"), .init("LAST ERROR", "last_error"),
    ]
}

/// The values `webhook add` and `webhook update` take.
struct WebhookValueOptions: ParsableArguments {
    @Option(help: "Janrain's title: 2 to 200 characters, unique.")
    var title: String?
    @Option(help: "The listener's URL: https (http only to loopback, with webhooks.allowPlainHTTP).")
    var endpoint: String?
    @Option(
        name: .customLong("event"),
        help: ArgumentHelp(
            "An event: entityCreated, entityUpdated, entityDeleted, or a security event (docs/webhooks.md); repeatable.",
            valueName: "name"))
    var events: [String] = []
    @Option(
        name: .customLong("client"),
        help: ArgumentHelp("Only changes made by this client; repeatable (none: any).", valueName: "client-id"))
    var clients: [String] = []
    @Option(
        name: .customLong("attribute"),
        help: ArgumentHelp("entityUpdated only when this attribute changed; repeatable (none: any).", valueName: "name"))
    var attributes: [String] = []
    @Option(name: .customLong("include-values"), help: "true: entityUpdated carries the changed values too.")
    var includeValues: Bool?
    @Option(help: "true or false.")
    var enabled: Bool?

    func parsedEvents() throws -> [WebhookEventType]? {
        events.isEmpty ? nil : try events.map { try WebhookEventType.parsed($0, field: "event") }
    }
}

extension WebhookCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Subscribe a listener; its signing secret is printed once.")

        @OptionGroup var values: WebhookValueOptions
        @Option(help: "v1 (HMAC-SHA256, the default) or v1a (Ed25519: the listener verifies with the public key).")
        var signing: String = "v1"
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            guard let title = values.title else { throw ValidationError("--title is required") }
            guard let endpoint = values.endpoint else { throw ValidationError("--endpoint is required") }
            guard let events = try values.parsedEvents() else { throw ValidationError("at least one --event is required") }
            guard let chosen = WebhookSigning(rawValue: signing) else { throw ValidationError("--signing must be v1 or v1a") }
            var draft = WebhookDraft(title: title, endpoint: endpoint, events: events)
            draft.clients = values.clients
            draft.attributes = values.attributes
            draft.includeValues = values.includeValues ?? false
            draft.enabled = values.enabled ?? true
            draft.signing = chosen
            let asked = draft
            try await options.withConsole(creatingDatabase: true) { console, output in
                let added = try await console.perform(WebhookOperations.addWebhook, asked)
                if output.json { return output.emit(try AdminViews.document(added)) }
                try output.record(WebhookCommand.fields + ["secret"], added)
                if let note = added.note { print("\n" + note) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List webhook subscriptions.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.list(WebhookCommand.columns, try await console.perform(WebhookOperations.webhooks))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one subscription (never its secret).")

        @Argument(help: ArgumentHelp("The subscription's id.", valueName: "id"))
        var id: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.record(WebhookCommand.fields, try await console.perform(WebhookOperations.webhook, id))
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update", abstract: "Change a subscription; lists given replace the stored ones.")

        @Argument(help: ArgumentHelp("The subscription's id.", valueName: "id"))
        var id: String
        @OptionGroup var values: WebhookValueOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            var change = WebhookChange()
            change.title = values.title
            change.endpoint = values.endpoint
            change.events = try values.parsedEvents()
            change.clients = values.clients.isEmpty ? nil : values.clients.filter { !$0.isEmpty }
            change.attributes = values.attributes.isEmpty ? nil : values.attributes.filter { !$0.isEmpty }
            change.includeValues = values.includeValues
            change.enabled = values.enabled
            let input = WebhookUpdate(id: id, change: change)
            try await options.withConsole { console, output in
                try output.record(WebhookCommand.fields, try await console.perform(WebhookOperations.updateWebhook, input))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a subscription and its events.")

        @Argument(help: ArgumentHelp("The subscription's id.", valueName: "id"))
        var id: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let removed = try await console.perform(WebhookOperations.removeWebhook, id)
                try output.message("Removed webhook subscription \(removed.id) (\(removed.title)).", view: removed)
            }
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret",
            abstract: "Give a subscription a new secret (printed once); the old one signs beside it for a while.")

        @Argument(help: ArgumentHelp("The subscription's id.", valueName: "id"))
        var id: String
        @Option(
            name: .customLong("keep-old-hours"),
            help: "How long the old secret still signs beside the new one (default: webhooks.rotationOverlapHours; 0: not).")
        var keepOldHours: Double?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let input = WebhookRotation(id: id, keepOldHours: keepOldHours)
            try await options.withConsole { console, output in
                let rotated = try await console.perform(WebhookOperations.rotateWebhookSecret, input)
                if output.json { return output.emit(try AdminViews.document(rotated)) }
                try output.record(["id", "title", "signing", "public_key", "previous_secret_expires_at", "secret"], rotated)
                if let note = rotated.note { print("\n" + note) }
            }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test", abstract: "Send a ping event to one subscription (delivered by the running service).")

        @Argument(help: ArgumentHelp("The subscription's id.", valueName: "id"))
        var id: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let event = try await console.perform(WebhookOperations.testWebhook, id)
                try output.message("Test event \(event.id) recorded for \(id).", view: event)
            }
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events", abstract: "A subscription's events, newest first (the history; `event` shows attempts).")

        @Argument(help: ArgumentHelp("The subscription's id.", valueName: "id"))
        var id: String
        @Option(help: "pending, delivered or failed.")
        var status: String?
        @Option(help: "Created at or after (ISO-8601).")
        var since: String?
        @Option(help: "Created before (ISO-8601).")
        var until: String?
        @Option var limit: Int = Page.defaultLimit
        @Option var offset: Int = 0
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let statusValue = try status.map { text in
                guard let value = WebhookEvent.Status(rawValue: text) else {
                    throw ValidationError("--status must be pending, delivered or failed")
                }
                return value
            }
            let query = WebhookEventQuery(
                subscriptionID: id, status: statusValue, since: try WebhookOperations.date(since, "since"),
                until: try WebhookOperations.date(until, "until"), page: Page(limit: limit, offset: offset))
            try await options.withConsole { console, output in
                try output.list(WebhookCommand.eventColumns, try await console.perform(WebhookOperations.webhookEvents, query))
            }
        }
    }

    struct Event: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "event", abstract: "One event (its webhook-id): each subscription's delivery and every attempt.")

        @Argument(help: ArgumentHelp("The event's id (msg_…).", valueName: "event-id"))
        var id: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let found = try await console.perform(WebhookOperations.webhookEvent, id)
                if output.json { return output.emit(try AdminViews.document(found)) }
                for event in found.items {
                    try output.record(
                        ["id", "subscription", "type", "user", "status", "attempts", "created_at", "delivered_at", "last_error"],
                        event)
                    for attempt in event.history ?? [] {
                        print(
                            "  \(iso(attempt.at))  \(attempt.status.map(String.init) ?? "-")  \(attempt.milliseconds) ms  "
                                + (attempt.error ?? "ok"))
                    }
                }
            }
        }
    }

    struct Redeliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "redeliver", abstract: "Make failed events due again: one by id, or a time range.")

        @Option(help: "The event's id (msg_…).")
        var event: String?
        @Option(help: "Only this subscription's events.")
        var subscription: String?
        @Option(help: "Created at or after (ISO-8601).")
        var since: String?
        @Option(help: "Created before (ISO-8601).")
        var until: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            guard event != nil || since != nil || until != nil || subscription != nil else {
                throw ValidationError("give --event, or --since/--until (and --subscription)")
            }
            let input = WebhookRedelivery(
                event: event,
                query: WebhookEventQuery(
                    subscriptionID: subscription, since: try WebhookOperations.date(since, "since"),
                    until: try WebhookOperations.date(until, "until")))
            try await options.withConsole { console, output in
                let done = try await console.perform(WebhookOperations.redeliverWebhookEvents, input)
                try output.message("\(Output.plural(done.redelivered, "event")) due again.", view: done)
            }
        }
    }
}
