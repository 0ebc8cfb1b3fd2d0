import CaptureJSON
import Foundation

/// A record's social `profiles` as Janrain holds them (`domain`, `identifier`, `profile`, `accessCredentials`…) or as
/// this service writes them (`domain` the provider's name, `identifier` `<provider>:<subject>`), turned into linked
/// provider accounts. A profile of a provider configured here is linked under that provider's name; one of another
/// provider is kept too, under the name its domain gives (`facebook` for `www.facebook.com`), and works once a
/// provider of that name is configured (docs/adr/0066). Access credentials are never taken: a provider's tokens were
/// issued to the old app.
enum ImportedProfiles {
    struct Found {
        /// Links to providers configured here.
        var links: [LinkedIdentity] = []
        /// Links kept for providers not configured here (yet).
        var kept: [LinkedIdentity] = []
        /// Profiles that name no provider or no account (no identifier, an identifier without a subject).
        var unmatched = 0
    }

    static func read(_ value: JSONValue?, userID: String, providers: [String], now: Date) -> Found {
        var found = Found()
        guard case .array(let elements)? = value else { return found }
        for element in elements {
            guard case .object(let members) = element,
                let (identity, configured) = identity(members, userID: userID, providers: providers, now: now)
            else {
                found.unmatched += 1
                continue
            }
            if configured { found.links.append(identity) } else { found.kept.append(identity) }
        }
        return found
    }

    private static func identity(
        _ members: [String: JSONValue], userID: String, providers: [String], now: Date
    ) -> (LinkedIdentity, configured: Bool)? {
        guard case .string(let identifier)? = members["identifier"], !identifier.isEmpty else { return nil }
        let domain = members["domain"]?.stringValue?.lowercased() ?? ""
        let configured = providers.first(where: { names($0, domain: domain, identifier: identifier) })
        guard let provider = configured ?? unconfiguredName(domain: domain, identifier: identifier),
            let subject = subject(of: identifier, provider: provider), !subject.isEmpty
        else { return nil }
        let inner = members["profile"]?.objectMembers
        let email =
            members["email"]?.stringValue ?? members["verifiedEmail"]?.stringValue ?? inner?["verifiedEmail"]?.stringValue
            ?? inner?["email"]?.stringValue
        let linkedAt = members["created"]?.stringValue.flatMap(CaptureDate.parse) ?? now
        let identity = LinkedIdentity(
            provider: provider, subject: subject, userID: userID, email: email.map { User.normalize(email: $0) },
            linkedAt: linkedAt)
        return (identity, configured != nil)
    }

    /// The name a profile of a provider not configured here is kept under: the identifier's `<provider>:` prefix
    /// (this service's own form), else the domain's label before its top-level one (`facebook` in
    /// `www.facebook.com`, `google` in `accounts.google.com`); lower-case letters, digits and `-` only.
    private static func unconfiguredName(domain: String, identifier: String) -> String? {
        let prefix = identifier.split(separator: ":", maxSplits: 1).first.map(String.init)
        if let prefix, identifier.contains(":"), !identifier.contains("://"), isName(prefix.lowercased()) {
            return prefix.lowercased()
        }
        let labels = domain.split(separator: ".")
        guard labels.count >= 2 else { return isName(domain) ? domain : nil }
        let name = String(labels[labels.count - 2])
        return isName(name) ? name : nil
    }

    private static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 32
            && text.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
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
