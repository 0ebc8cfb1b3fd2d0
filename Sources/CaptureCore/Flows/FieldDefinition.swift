/// One form field as Settings defines it: how it renders and how it is validated.
public struct FieldDefinition: Sendable, Equatable, Codable {
    /// Syntax checks beyond length.
    public enum Format: String, Sendable, Codable {
        case email, date, phone
    }

    public var name: String = ""
    public var label: String
    /// The HTML input type: email, password, text, date, tel, checkbox, hidden.
    public var type: String
    public var autocomplete: String?
    public var required: Bool?
    public var minLength: Int?
    public var maxLength: Int?
    /// UTF-8 byte limit (bcrypt reads at most 72 bytes of a password). Without one, `byteLimit` applies.
    public var maxBytes: Int?
    public var format: Format?
    /// Name of another field in the same form that this one must equal.
    public var matches: String?
    /// The record attribute this field reads and writes, as a schema path (`givenName`, `primaryAddress.city`),
    /// or `password` / `currentPassword`.
    public var attribute: String?
    /// `attribute` resolved against the schema at load; nil for passwords and fields that write nothing.
    public var recordPath: EntityPath?
    /// Overrides for the default messages, keyed by rule: required, minLength, maxLength, format, matches.
    public var messages: [String: String]?
    /// `select`, `radio` or `textarea` for a field that is not one `<input>` (imported Janrain flows); nil for an input.
    public var element: String?
    /// The values a `select` or `radio` field takes, with their labels (a `hidden` field: its one value); any other
    /// value is refused (`format`).
    public var options: [FieldOption]?
    public var placeholder: String?
    public var tip: String?

    enum CodingKeys: String, CodingKey {
        case label, type, autocomplete, required, minLength, maxLength, maxBytes, format, matches, attribute, messages
        case element, options, placeholder, tip
    }

    /// A character limit alone does not bound storage: one letter with thousands of combining marks is one
    /// character. So every field has a byte limit: its own `maxBytes`, else 4 bytes per allowed character (the
    /// most one scalar takes in UTF-8), else `defaultMaxBytes`. A field added to Settings cannot go unbounded.
    public var byteLimit: Int { maxBytes ?? maxLength.map { $0 * 4 } ?? Self.defaultMaxBytes }

    /// The byte limit of a field that states neither `maxBytes` nor `maxLength`.
    public static let defaultMaxBytes = 1_024

    public var isRequired: Bool { required ?? false }
    public var isPassword: Bool { type == "password" }
    public var isCheckbox: Bool { type == "checkbox" }

    /// A submitted value as the rules see it: a password as typed, a box "true" when ticked and empty when not
    /// (the page sends an unticked box as "false"), a hidden field sent empty its flow's value (it carries nothing
    /// else: another value is refused by its one option), other text trimmed.
    public func cleaned(_ raw: String) -> String {
        if isPassword { return raw }
        if isCheckbox { return ["true", "on", "1", "yes"].contains(raw.lowercased()) ? "true" : "" }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if type == "hidden", text.isEmpty, let value = options?.first?.value { return value }
        return text
    }
}

/// One choice of a `select` or `radio` field.
public struct FieldOption: Sendable, Equatable, Codable {
    public var value: String
    public var label: String

    public init(value: String, label: String) {
        self.value = value
        self.label = label
    }
}

/// A page in Settings/flows: the `janrain.settings` values for one flow and the forms it may submit.
public struct FlowDefinition: Sendable, Equatable, Codable {
    public var name: String = ""
    /// Template file in WebFlows/pages.
    public var page: String
    public var title: String
    public var flowVersion: String
    public var registerFlow: String
    public var locale: String
    /// Client used when the page is opened without `client_id`.
    public var defaultClient: String?
    /// A relative path resolves against the public origin; an absolute URL must be an allowed origin of the client.
    public var tokenUrl: String
    public var responseType: ResponseType
    public var screenToRender: String?
    public var forms: [String]
    /// The page's `capture.thinRegistration` (default true): a first social sign-in whose profile is enough makes
    /// the account at once; false always shows `socialRegistration` first.
    public var thinRegistration: Bool?
    /// Other names the flow answers to: the flow names of Janrain's templates and plugins (`standard`, `plugins`) that
    /// customers' pages ask for (docs/janrain-migration.md).
    public var aliases: [String]?
    /// The flow a customer's Janrain page gets when it names one this service has not (its own flow, before it is
    /// imported): its screens then render and its forms go to this flow. At most one flow says so.
    public var janrainFallback: Bool?
    /// A flow imported from a Janrain flow document (`capturectl flows import`) has its own fields and forms; its
    /// `page` is empty (it serves customers' pages only).
    public var imported: ImportedFlow?

    public var isImported: Bool { imported != nil }

    enum CodingKeys: String, CodingKey {
        case page, title, flowVersion, registerFlow, locale, defaultClient, tokenUrl, responseType, screenToRender, forms
        case thinRegistration, aliases, janrainFallback, imported
    }
}
