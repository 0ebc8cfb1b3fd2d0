import ArgumentParser
import CaptureCore

/// `capturectl keys …`: the signing keys of OpenID Connect's ID tokens and the JWKS (never their private material).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "List and rotate the signing keys of ID tokens (published at /oidc/jwks).",
        subcommands: [List.self, Rotate.self])

    static let columns: [Output.Column] = [
        .init("KID", "kid"), .init("ALG", "alg"), .init("STATE", "state"), .init("CREATED", "created_at"),
        .init("RETIRES", "retires_at"),
    ]
}

extension KeysCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the signing keys: kid, algorithm, state, created, retires.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.list(KeysCommand.columns, try await console.perform(AdminOperations.signingKeys, AdminNothing()))
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Make a new signing key that signs from now on; the old one stays published until its ID tokens expire.")

        @Option(help: ArgumentHelp("RS256 or ES256 (default: both).", valueName: "algorithm"))
        var algorithm: String?
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if let algorithm, JWSAlgorithm.named(algorithm) == nil {
                throw ValidationError("--algorithm must be RS256 or ES256")
            }
        }

        func run() async throws {
            let algorithms = algorithm.flatMap(JWSAlgorithm.named).map { [$0] } ?? JWSAlgorithm.allCases
            try await options.withConsole { console, output in
                try output.list(
                    KeysCommand.columns, try await console.perform(AdminOperations.rotateSigningKeys, algorithms))
            }
        }
    }
}
