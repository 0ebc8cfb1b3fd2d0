import Foundation

/// What a client may do on Janrain's server-to-server API (`JANRAIN-API.md` §2), by Janrain's names.
public enum ClientFeature: String, Sendable, Equatable, Hashable, CaseIterable, Comparable, Codable {
    /// Everything, including `clients/*` and `settings/*` of other clients.
    case owner
    /// Reads and writes records and issues tokens.
    case directAccess = "direct_access"
    /// Reads records.
    case directReadAccess = "direct_read_access"
    /// Issues tokens for known users (`access/*`).
    case accessIssuer = "access_issuer"
    /// An app's or page's public sign-in client: none of the server API.
    case loginClient = "login_client"

    public static func < (lhs: ClientFeature, rhs: ClientFeature) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Parses Janrain's names (`["owner","direct_access"]`, or one name); nil for an unknown one.
    public static func parse(_ names: [String]) -> Set<ClientFeature>? {
        var features: Set<ClientFeature> = []
        for name in names {
            guard let feature = ClientFeature(rawValue: name.trimmingCharacters(in: .whitespaces)) else { return nil }
            features.insert(feature)
        }
        return features
    }

    /// `parse` for an argument: an unknown name is Janrain's 200 `invalid_argument` naming it and the known ones.
    public static func parsed(_ names: [String], argument: String = "features") throws -> Set<ClientFeature> {
        guard let features = parse(names) else {
            let known = allCases.map(\.rawValue).joined(separator: ", ")
            throw CaptureError.invalidArgument(argument, "names an unknown feature (known: \(known))")
        }
        return features
    }
}

/// The kinds of server API call, each with the features that permit it (Janrain's reference pages: reads need
/// `direct_read_access` or more, writes `direct_access`, token issuing `access_issuer`, clients and other clients'
/// settings `owner`; a client's own settings any feature).
public enum ServerCallKind: String, Sendable, Equatable, CaseIterable {
    case readRecords, writeRecords, issueTokens, administerClients, ownSettings

    public var permittedBy: Set<ClientFeature> {
        switch self {
        case .readRecords: [.owner, .directAccess, .directReadAccess]
        case .writeRecords: [.owner, .directAccess]
        case .issueTokens: [.owner, .directAccess, .accessIssuer]
        case .administerClients: [.owner]
        case .ownSettings: Set(ClientFeature.allCases)
        }
    }

    public func isPermitted(for features: Set<ClientFeature>) -> Bool { !features.isDisjoint(with: permittedBy) }
}
