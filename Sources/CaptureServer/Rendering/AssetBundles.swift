import CaptureCore
import Foundation

/// The scripts joined at start-up from `WebFlows/assets/bundles.json` (docs/adr/0070): each bundle is a list of the
/// folder's files, or of other bundles, in the order they run. A page loads one bundle instead of a chain of scripts
/// that load scripts; a developer still edits the files as written and adds a module with one line in that list.
/// A bundle is its members one after the other, each after a comment naming it, with their comment lines left empty
/// (`ScriptComments`): every line of code is where the file has it.
struct AssetBundles: Sendable {
    static let file = "bundles.json"

    /// Bundle name → its bytes.
    let joined: [String: Data]
    /// Every file some bundle holds.
    let members: Set<String>

    static func load(directory: URL, files: [String: Data]) throws -> AssetBundles {
        let url = directory.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else { return AssetBundles(joined: [:], members: []) }
        let lists = try read(url)
        var joined: [String: Data] = [:]
        var members: Set<String> = []

        func fail(_ key: String, _ problem: String) -> SettingsError {
            SettingsError(file: "WebFlows/assets/\(file)", key: key, problem: problem)
        }

        func expand(_ bundle: String, via: [String]) throws -> [String] {
            guard !via.contains(bundle) else {
                throw fail("bundles.\(via[0])", "includes itself (\((via + [bundle]).joined(separator: " → ")))")
            }
            var names: [String] = []
            for entry in lists[bundle] ?? [] {
                if lists[entry] != nil {
                    names += try expand(entry, via: via + [bundle])
                } else if files[entry] != nil, entry.hasSuffix(".js") {
                    names.append(entry)
                } else {
                    throw fail("bundles.\(bundle)", "'\(entry)' is neither a script in WebFlows/assets nor a bundle")
                }
            }
            return names
        }

        for bundle in lists.keys.sorted() {
            guard bundle.hasSuffix(".js"), !bundle.contains("/") else {
                throw fail("bundles.\(bundle)", "a bundle's name is a script's file name (ending .js)")
            }
            guard files[bundle] == nil else {
                throw fail("bundles.\(bundle)", "a file of WebFlows/assets has this name already")
            }
            let names = try expand(bundle, via: [])
            guard Set(names).count == names.count else {
                throw fail("bundles.\(bundle)", "holds a file twice")
            }
            var data = Data("/* \(bundle): joined at start-up from WebFlows/assets/\(file) (docs/adr/0070). */\n".utf8)
            for name in names {
                guard let member = files[name] else { continue }
                data.append(Data("\n/* ---- \(name) ---- */\n".utf8))
                let code = ScriptComments.blanked(String(decoding: member, as: UTF8.self))
                data.append(Data(code.utf8))
                if !code.hasSuffix("\n") { data.append(UInt8(ascii: "\n")) }
                members.insert(name)
            }
            joined[bundle] = data
        }
        return AssetBundles(joined: joined, members: members)
    }

    /// `{"bundles": {"<name>.js": ["<file or bundle>", …]}}`; other top-level keys (`about`) are for people.
    private static func read(_ url: URL) throws -> [String: [String]] {
        let problem = SettingsError(
            file: "WebFlows/assets/\(file)", key: "bundles", problem: "must be an object of lists of file names")
        guard let data = try? Data(contentsOf: url),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let bundles = root["bundles"] as? [String: Any]
        else { throw problem }
        var lists: [String: [String]] = [:]
        for (name, value) in bundles {
            guard let list = value as? [String] else { throw problem }
            lists[name] = list
        }
        return lists
    }
}
