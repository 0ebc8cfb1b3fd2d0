import ArgumentParser
import CaptureCore
import CaptureStorage
import Crypto
import Dispatch
import Foundation
import HummingbirdBcrypt

/// The benchmark's helper (`scripts/bench.sh`, docs/benchmarks.md); not part of the service and never run by the tests.
///
///     capture-bench seed-tokens --db bench.sqlite --settings dir --count 200000 --codes 100000 --out dir
///     capture-bench bcrypt-rate --cost 10 --seconds 5
@main
struct CaptureBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture-bench",
        abstract: "Seeds tokens and measures raw bcrypt for scripts/bench.sh.",
        subcommands: [SeedTokens.self, BcryptRate.self])
}

/// Mints tokens for users already in the database the way the service does (`TokenMinter`, `TokenRecord`, the token
/// repository's `insert`, one write transaction per batch) and writes the plaintext tokens for wrk's Lua scripts.
struct SeedTokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-tokens",
        abstract: "Stores access + refresh token pairs and PKCE-bound authorization codes; writes their plaintext.",
        discussion: """
            Writes, one per line: access.txt and refresh.txt (pair i is one chain of user i mod users), codes.txt \
            ("code verifier", each code its own chain with an S256 challenge of its verifier and no bound redirect \
            URI). Codes live --code-hours (the service gives its own 60 s; seeded ones must outlast the run).
            """)

    @Option(help: "SQLite database file (users already imported).") var db: String
    @Option(help: "Settings directory (token lifetimes).") var settings: String
    @Option(help: "Access + refresh tokens to store (half of each kind).") var count = 200_000
    @Option(help: "Authorization codes to store, in addition to --count.") var codes = 100_000
    @Option(help: "The client the tokens are issued to.") var client = "demo-mobile-app"
    @Option(help: "Lifetime of the seeded authorization codes, in hours.") var codeHours = 24.0
    @Option(help: "Tokens per write transaction.") var batch = 5_000
    @Option(help: "Directory for access.txt, refresh.txt and codes.txt.") var out: String

    func run() async throws {
        let settings = try ServiceSettings.resolve(
            directory: URL(fileURLWithPath: self.settings), flags: SettingsOverrides(database: db), environment: [:])
        let store = try await OpenedStorage.open(try settings.databaseLocation()).repositories
        let started = Date()
        // Large pages: the list is ordered by creation time, and each page sorts the table again.
        let pageSize = 50_000
        var userIDs: [String] = []
        while true {
            let page = try await store.users.list(search: nil, page: Page(limit: pageSize, offset: userIDs.count))
            userIDs += page.map(\.id)
            if page.count < pageSize { break }
        }
        guard !userIDs.isEmpty else { throw ValidationError("no users in \(settings.database): import some first") }
        let listed = Date()
        var inserting: TimeInterval = 0
        let minter = TokenMinter(random: SystemRandom())
        let now = Date()
        var access: [String] = [], refresh: [String] = [], codeLines: [String] = []
        var pending: [TokenRecord] = []
        func flush(force: Bool = false) async throws {
            if pending.count >= batch || (force && !pending.isEmpty) {
                let start = Date()
                defer { inserting += Date().timeIntervalSince(start) }
                try await store.tokens.insert(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
        for index in 0..<(count / 2) {
            let user = userIDs[index % userIDs.count], chain = minter.identifier()
            let accessToken = minter.mintToken(at: now), refreshToken = minter.mintToken(at: now)
            pending.append(
                TokenRecord(
                    kind: .access, hash: TokenMinter.key(accessToken), userID: user, clientID: client, chainID: chain,
                    issuedAt: now, expiresAt: now + settings.accessTokenLifetime))
            pending.append(
                TokenRecord(
                    kind: .refresh, hash: TokenMinter.key(refreshToken), userID: user, clientID: client,
                    chainID: chain, issuedAt: now, expiresAt: now + settings.refreshTokenLifetime))
            access.append(accessToken)
            refresh.append(refreshToken)
            try await flush()
        }
        for index in 0..<codes {
            let code = minter.mintToken(at: now), verifier = minter.mint() + minter.mint()  // 86 characters, RFC 7636 §4.1
            var record = TokenRecord(
                kind: .code, hash: TokenMinter.key(code), userID: userIDs[index % userIDs.count], clientID: client,
                chainID: minter.identifier(), issuedAt: now, expiresAt: now + codeHours * 3600)
            record.codeChallenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded()
            pending.append(record)
            codeLines.append("\(code) \(verifier)")
            try await flush()
        }
        try await flush(force: true)
        let seconds = Date().timeIntervalSince(started)
        let directory = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, lines) in [("access.txt", access), ("refresh.txt", refresh), ("codes.txt", codeLines)] {
            try (lines.joined(separator: "\n") + "\n").write(
                to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let stored = access.count + refresh.count + codeLines.count
        print(
            "users=\(userIDs.count) tokens=\(stored) access=\(access.count) refresh=\(refresh.count) codes=\(codeLines.count)",
            terminator: " ")
        print("seconds=\(String(format: "%.2f", seconds)) per_second=\(Int(Double(stored) / seconds))", terminator: " ")
        print("listing_users_seconds=\(String(format: "%.2f", listed.timeIntervalSince(started)))", terminator: " ")
        print("insert_seconds=\(String(format: "%.2f", inserting))")
    }
}

/// Raw bcrypt verify rate: HummingbirdBcrypt's `Bcrypt.verify` (what `BcryptPasswordHasher` runs) on every thread
/// of the service's `HashingPool` (one per core, at its priority), nothing else; the ceiling for password sign-in at
/// the same cost.
struct BcryptRate: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bcrypt-rate", abstract: "Verifies per second, all cores.")

    @Option(help: "bcrypt cost of the hash verified.") var cost = 12
    @Option(help: "How long to measure.") var seconds = 5.0

    func run() throws {
        let threads = HashingPool.threadCount
        let hash = Bcrypt.hash("imported password 0", cost: UInt8(cost))
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
        defer { counts.deallocate() }
        let started = DispatchTime.now().uptimeNanoseconds
        nonisolated(unsafe) let slots = counts
        // One long work item per pool thread, as the service puts each verify there.
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Task {
                slots[thread] = await HashingPool.run {
                    var done = 0
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        guard Bcrypt.verify("imported password 0", hash: hash) else { fatalError("bcrypt verify failed") }
                        done += 1
                    }
                    return done
                }
                group.leave()
            }
        }
        group.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let total = counts.reduce(0, +)
        print(
            "cost=\(cost) threads=\(threads) verifies=\(total) seconds=\(String(format: "%.2f", elapsed)) per_second=\(String(format: "%.2f", Double(total) / elapsed))"
        )
    }
}
