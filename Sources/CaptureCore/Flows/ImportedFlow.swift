import CaptureJSON

/// What a flow imported from a Janrain flow document holds besides a flow's settings (JanrainFlowImport): its own
/// fields and forms, the texts of each locale in the service's keys (`field.<name>.label`, `field.<name>.<rule>`:
/// they come before the service's catalogs), Janrain's own translations (for the text tags of customers' pages),
/// its screens, buttons and next-screen rules. The fields hold the texts of the flow's own locale too.
public struct ImportedFlow: Sendable, Equatable, Codable {
    public var fields: [String: FieldDefinition]
    /// Form name → its fields, in order.
    public var forms: [String: [String]]
    /// Locale → the service's text keys → text.
    public var texts: [String: [String: String]]
    /// Locale → Janrain's translation key → text, as the document had them.
    public var translations: [String: [String: String]]
    public var screens: [String]
    public var defaultScreen: String
    /// Button name → its label in the flow's locale.
    public var buttons: [String: String]
    /// Form name → the screen that follows it (Janrain's `next`, as far as a page follows it: JanrainNextRule).
    public var next: [String: JSONValue]?
    /// Form name → every name the document's form listed, its buttons and drawn elements among its fields, so an
    /// export writes the form back as it was (`forms` holds the fields the service validates).
    public var layout: [String: [String]]?
    /// The document's members the service does not read (Janrain's `i18nStrings`, `mails`, …) and each form's (its
    /// `action`, …), kept as they were so that an export gives the document back whole.
    public var kept: [String: JSONValue]?
    public var keptInForms: [String: [String: JSONValue]]?

    public init(
        fields: [String: FieldDefinition], forms: [String: [String]], texts: [String: [String: String]],
        translations: [String: [String: String]], screens: [String], defaultScreen: String, buttons: [String: String],
        next: [String: JSONValue]? = nil, layout: [String: [String]]? = nil
    ) {
        self.fields = fields
        self.forms = forms
        self.texts = texts
        self.translations = translations
        self.screens = screens
        self.defaultScreen = defaultScreen
        self.buttons = buttons
        self.next = next
        self.layout = layout
    }

    /// The key of a button's label among `texts` (its label in `buttons` is the flow's locale's).
    public static func buttonLabelKey(_ button: String) -> String { "button.\(button).label" }

    /// Janrain's translations in `tag`'s language (`de-AT` → `de-AT`, then any `de` locale), else `fallback`'s.
    public func translations(for tag: String, fallback: String) -> [String: String] {
        Self.pick(translations, for: tag) ?? Self.pick(translations, for: fallback) ?? [:]
    }

    /// The service's texts in `tag`'s language, picked as `translations(for:)` picks them.
    public func texts(for tag: String) -> [String: String] {
        Self.pick(texts, for: tag) ?? [:]
    }

    private static func pick(_ table: [String: [String: String]], for tag: String) -> [String: String]? {
        let lowered = Dictionary(table.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        let language = tag.lowercased().split(separator: "-").first.map(String.init) ?? ""
        if let exact = lowered[tag.lowercased()] { return exact }
        return lowered.keys.sorted().first { $0 == language || $0.hasPrefix(language + "-") }.flatMap { lowered[$0] }
    }
}
