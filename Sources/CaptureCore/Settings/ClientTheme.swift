import Foundation

/// A client's look (`clients[].theme` in service.json; docs/themes.md): colours over the `--capture-*` properties,
/// a font stack, a logo and an extra stylesheet from the themes directory. The service serves it as its own
/// stylesheet, so the pages' CSP stays `style-src 'self'`.
public struct ClientThemeSettings: Sendable, Equatable, Codable {
    /// An image file (`.svg` or `.png`) in the themes directory, shown above every screen.
    public var logo: String?
    /// The logo's text alternative, for a logo that names the app (a brand name, the same in every language).
    /// Without it the logo is decorative (`alt=""`): the host app around the web view already says whose it is.
    public var logoAlt: String?
    /// Light-scheme colours by name (`primary`, `background`, … see `ThemeColor`), each `#rgb` or `#rrggbb`.
    public var colors: [String: String]?
    /// Dark-scheme colours; a colour missing here keeps the built-in dark value even when `colors` sets it.
    public var darkColors: [String: String]?
    /// Font family names, most wanted first; generic families (`sans-serif`, `system-ui`, …) stay unquoted.
    public var fontStack: [String]?
    /// A `.css` file in the themes directory, appended to the generated rules.
    public var stylesheet: String?

    public init(
        logo: String? = nil, logoAlt: String? = nil, colors: [String: String]? = nil,
        darkColors: [String: String]? = nil, fontStack: [String]? = nil, stylesheet: String? = nil
    ) {
        self.logo = logo
        self.logoAlt = logoAlt
        self.colors = colors
        self.darkColors = darkColors
        self.fontStack = fontStack
        self.stylesheet = stylesheet
    }

    /// Font families CSS names with keywords: written bare; every other name is quoted.
    public static let genericFamilies: Set<String> = [
        "serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "ui-serif", "ui-sans-serif",
        "ui-monospace", "ui-rounded", "math", "emoji", "fangsong", "-apple-system", "BlinkMacSystemFont",
    ]

    /// The first problem, as (key below `theme`, what is wrong), or nil.
    public func problem() -> (key: String, problem: String)? {
        if let logo, let problem = Self.fileNameProblem(logo, extensions: ["svg", "png"]) { return ("logo", problem) }
        if let logoAlt {
            if logo == nil { return ("logoAlt", "needs a logo") }
            if logoAlt.isEmpty || logoAlt.count > 120
                || logoAlt.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                return ("logoAlt", "must be 1-120 characters without control characters")
            }
        }
        if let stylesheet, let problem = Self.fileNameProblem(stylesheet, extensions: ["css"]) {
            return ("stylesheet", problem)
        }
        for (key, colors) in [("colors", colors), ("darkColors", darkColors)] {
            for (name, value) in (colors ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard ThemeColor(rawValue: name) != nil else {
                    return (
                        "\(key).\(name)",
                        "is not a theme colour; use \(ThemeColor.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                guard ThemePalette.isHexColor(value) else {
                    return ("\(key).\(name)", "'\(value)' is not a colour written #rgb or #rrggbb")
                }
            }
        }
        if let fontStack {
            guard (1...12).contains(fontStack.count) else { return ("fontStack", "must list 1-12 font families") }
            for (index, family) in fontStack.enumerated() where !Self.isFontFamilyName(family) {
                return (
                    "fontStack[\(index)]",
                    "'\(family)' is not a font family name (1-64 letters, digits, spaces, '-' or '_'; no quotes or punctuation)"
                )
            }
        }
        for scheme in ThemePalette.Scheme.allCases {
            let palette = ThemePalette.effective(scheme, overrides: scheme == .light ? colors : darkColors)
            if let failure = palette.contrastProblem() {
                return (scheme == .light ? "colors" : "darkColors", "\(failure) in the \(scheme.rawValue) scheme (WCAG AA)")
            }
        }
        return nil
    }

    /// The CSS value of `font-family` for the stack: keywords bare, names quoted (checked, so no quote inside).
    public var fontFamilyCSS: String? {
        guard let fontStack, !fontStack.isEmpty else { return nil }
        return fontStack.map { Self.genericFamilies.contains($0) ? $0 : "\"\($0)\"" }.joined(separator: ", ")
    }

    static func isFontFamilyName(_ name: String) -> Bool {
        guard (1...64).contains(name.count), name.trimmingCharacters(in: .whitespaces) == name else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar == " " || scalar == "-" || scalar == "_" || scalar.properties.isAlphabetic
                || scalar.properties.numericType == .decimal
        }
    }

    /// A plain file name in the themes directory: no path, no hidden file, one of the extensions.
    static func fileNameProblem(_ name: String, extensions: Set<String>) -> String? {
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90) || (byte >= 48 && byte <= 57) || byte == 45 || byte == 95
                || byte == 46
        }
        let suffix = name.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        guard allowed, !name.hasPrefix("."), !name.contains(".."), name.count <= 100, name.contains("."),
            extensions.contains(suffix)
        else {
            return "'\(name)' must be a file name in the themes directory (letters, digits, '-', '_', '.') ending in "
                + extensions.sorted().map { ".\($0)" }.joined(separator: " or ")
        }
        return nil
    }
}

/// The colours a theme may set, each one `--capture-*` property of capture.css.
public enum ThemeColor: String, CaseIterable, Sendable {
    case text, muted, background, surface, border, divider, primary, primaryDark, onPrimary, error, errorSurface, success,
        successSurface, focus

    /// `primaryDark` → `--capture-primary-dark`.
    public var property: String {
        var name = "--capture-"
        for character in rawValue {
            if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
        }
        return name
    }
}

/// Colour values of one scheme: the built-in defaults (the same as capture.css's; a test compares them) with a
/// theme's overrides, and the contrast rules every palette must meet.
public struct ThemePalette: Sendable, Equatable {
    public enum Scheme: String, CaseIterable, Sendable { case light, dark }

    public let colors: [ThemeColor: String]

    public init(colors: [ThemeColor: String]) {
        self.colors = colors
    }

    public static let light: [ThemeColor: String] = [
        .text: "#1a1c20", .muted: "#4d5562", .background: "#ffffff", .surface: "#f4f6f9", .border: "#8a94a3",
        .divider: "#d5dae1", .primary: "#0b5cad", .primaryDark: "#084987", .onPrimary: "#ffffff", .error: "#b00020",
        .errorSurface: "#fdecee", .success: "#14672f", .successSurface: "#e8f5ec", .focus: "#ffbf47",
    ]
    public static let dark: [ThemeColor: String] = [
        .text: "#e6e8eb", .muted: "#a9b1bd", .background: "#121417", .surface: "#1e2227", .border: "#7c8694",
        .divider: "#3a4049", .primary: "#8cc4ff", .primaryDark: "#b5d9ff", .onPrimary: "#0a1a2e", .error: "#ff8f8f",
        .errorSurface: "#3b1b1f", .success: "#7ed69b", .successSurface: "#15301f", .focus: "#ffbf47",
    ]

    /// The scheme's defaults with the (already validated) overrides applied; unknown names are ignored.
    public static func effective(_ scheme: Scheme, overrides: [String: String]?) -> ThemePalette {
        var colors = scheme == .light ? light : dark
        for (name, value) in overrides ?? [:] {
            if let color = ThemeColor(rawValue: name) { colors[color] = value.lowercased() }
        }
        return ThemePalette(colors: colors)
    }

    /// Foreground on background pairs the pages draw, with the contrast each needs: 4.5:1 for text (WCAG 1.4.3),
    /// 3:1 for input borders (1.4.11).
    public static let requiredContrast: [(ThemeColor, ThemeColor, Double)] = [
        (.text, .background, 4.5), (.text, .surface, 4.5), (.text, .errorSurface, 4.5), (.muted, .background, 4.5),
        (.muted, .surface, 4.5), (.primary, .background, 4.5), (.primary, .surface, 4.5), (.onPrimary, .primary, 4.5),
        (.onPrimary, .primaryDark, 4.5), (.error, .background, 4.5), (.error, .errorSurface, 4.5),
        (.success, .successSurface, 4.5), (.border, .background, 3),
    ]

    /// "text on background is 3.2:1, needs 4.5:1", or nil when every pair is readable.
    public func contrastProblem() -> String? {
        for (foreground, background, needed) in Self.requiredContrast {
            guard let fg = colors[foreground], let bg = colors[background] else { continue }
            let ratio = Self.contrast(fg, bg)
            if ratio < needed {
                return "\(foreground.rawValue) (\(fg)) on \(background.rawValue) (\(bg)) is "
                    + String(format: "%.2f", ratio) + ":1, needs \(needed == 3 ? "3" : "4.5"):1"
            }
        }
        return nil
    }

    public static func isHexColor(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.first == UInt8(ascii: "#"), bytes.count == 4 || bytes.count == 7 else { return false }
        return bytes.dropFirst().allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
    }

    /// WCAG 2 contrast ratio of two `#rgb` / `#rrggbb` colours.
    public static func contrast(_ a: String, _ b: String) -> Double {
        let (la, lb) = (luminance(a), luminance(b))
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    static func luminance(_ hex: String) -> Double {
        var digits = String(hex.dropFirst())
        if digits.count == 3 { digits = digits.map { "\($0)\($0)" }.joined() }
        let value = UInt32(digits, radix: 16) ?? 0
        func channel(_ shift: UInt32) -> Double {
            let c = Double((value >> shift) & 0xff) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
    }
}
