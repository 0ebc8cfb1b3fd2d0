import CaptureJSON
import Foundation

/// A record's social `profiles` as Janrain holds them (`domain`, `identifier`, `profile`, `accessCredentials`…) or as
/// this service writes them (`domain` the provider's name, `identifier` `<provider>:<subject>`), turned into linked
/// provider accounts for the providers configured here. A profile of another provider is counted, not kept: the
/// schema has no place for it, and a link nobody can sign in with would only be an address to leak (docs/adr, import
/// of records whole). Access credentials are never taken: a provider's tokens were issued to the old app.
enum ImportedProfiles {
    struct Found {
        var links: [LinkedIdentity] = []
        var unmatched = 0
    }

    static func read(_ value: JSONValue?, userID: String, providers: [String], now: Date) -> Found {
        var found = Found()
        guard case .array(let elements)? = value else { return found }
        for element in elements {
            guard case .object(let members) = element,
                let identity = identity(members, userID: userID, providers: providers, now: now)
            else {
                found.unmatched += 1
                continue
            }
            found.links.append(identity)
        }
        return found
    }

    private static func identity(
        _ members: [String: JSONValue], userID: String, providers: [String], now: Date
    ) -> LinkedIdentity? {
        guard case .string(let identifier)? = members["identifier"], !identifier.isEmpty else { return nil }
        let domain = members["domain"]?.stringValue?.lowercased() ?? ""
        guard let provider = providers.first(where: { names($0, domain: domain, identifier: identifier) }),
            let subject = subject(of: identifier, provider: provider), !subject.isEmpty
        else { return nil }
        let inner = members["profile"]?.objectMembers
        let email =
            members["email"]?.stringValue ?? members["verifiedEmail"]?.stringValue ?? inner?["verifiedEmail"]?.stringValue
            ?? inner?["email"]?.stringValue
        let linkedAt = members["created"]?.stringValue.flatMap(CaptureDate.parse) ?? now
        return LinkedIdentity(
            provider: provider, subject: subject, userID: userID, email: email.map { User.normalize(email: $0) },
            linkedAt: linkedAt)
    }

    /// The provider is the profile's: its name is the domain, one label of it (`facebook` in `www.facebook.com`), or
    /// the identifier's `<provider>:` prefix.
    private static func names(_ provider: String, domain: String, identifier: String) -> Bool {
        let name = provider.lowercased()
        return domain == name || domain.split(separator: ".").contains { $0 == name }
            || identifier.lowercased().hasPrefix(name + ":")
    }

    /// The provider's id for the account: after `<provider>:`, else Janrain's URL identifier's `id=` query value or
    /// its last path segment (`https://www.google.com/profiles/1234` → `1234`).
    private static func subject(of identifier: String, provider: String) -> String? {
        if identifier.lowercased().hasPrefix(provider.lowercased() + ":") {
            return String(identifier.dropFirst(provider.count + 1))
        }
        guard let url = URLComponents(string: identifier), url.host != nil else { return nil }
        if let id = url.queryItems?.first(where: { $0.name == "id" })?.value, !id.isEmpty { return id }
        return url.path.split(separator: "/").last.map(String.init)
    }
}
