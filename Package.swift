// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "capture-bridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "capture-server", targets: ["capture-server"]),
        .executable(name: "capturectl", targets: ["capturectl"]),
        // Only `make bench` uses it (scripts/bench.sh): seeds tokens and measures the raw bcrypt rate.
        .executable(name: "capture-bench", targets: ["capture-bench"]),
    ],
    dependencies: [
        // Without the default ConfigurationSupport trait: settings are read by Core (ServiceSettings), and the trait
        // only adds swift-configuration to the build.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // swift-nio and swift-nio-extras are already in the graph through Hummingbird; named so the connection
        // handlers can use NIO's HTTP/1 types.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // Already in the graph through Hummingbird; named for the mail delivery service that runs beside the server.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Metrics: Core and Store record through the swift-metrics facade; only the server exports (Prometheus).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The second storage backend (CapturePostgres).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Already in the graph through postgres-nio; named for the TLS settings of `sslmode`.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // gzip (zlib) for the pages' assets and rendered pages, compressed once (docs/adr/0070).
        .package(url: "https://github.com/adam-fowler/compress-nio.git", exact: "1.5.0"),
    ],
    targets: [
        // JSON values, the bounded parser callers' JSON goes through, and the writer every reply is written with.
        .target(name: "CaptureJSON"),
        // The bounded CBOR decoder WebAuthn's attestation objects and COSE keys are read with.
        .target(name: "CaptureCBOR"),
        // Domain, settings, flow definitions and use cases: no HTTP, no SQL.
        .target(
            name: "CaptureCore",
            dependencies: [
                "CaptureJSON",
                "CaptureCBOR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                // NIOThreadPool: the bounded threads bcrypt runs on (HashingPool).
                .product(name: "NIOPosix", package: "swift-nio"),
                // Imported legacy password hashes (Passwords/Legacy): crypt(3) methods and argon2.
                "CXCrypt", "CArgon2",
            ]
        ),
        // Token checks kept in memory and the change stamps that retire them: what both stores' caches are made of.
        .target(
            name: "CaptureCache",
            dependencies: ["CaptureCore", .product(name: "Atomics", package: "swift-atomics")]
        ),
        // GRDB records, migrations and repositories: the only place SQL lives.
        .target(
            name: "CaptureStore",
            dependencies: [
                "CaptureCore",
                "CaptureCache",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the one hook GRDB does not wrap (WALCheckpointer: sqlite3_wal_hook).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The same repositories on PostgreSQL over postgres-nio: the only place PostgreSQL's SQL lives.
        .target(
            name: "CapturePostgres",
            dependencies: [
                "CaptureCore",
                "CaptureCache",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Opens the store a `DatabaseLocation` names (SQLite file or PostgreSQL URL): what the server, capturectl,
        // the benchmark and the tests open storage through.
        .target(
            name: "CaptureStorage",
            dependencies: [
                "CaptureCore", "CaptureStore", "CapturePostgres",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // sqlite3_config (variadic) as typed wrappers: the process-wide settings CaptureStore makes (SQLiteLibrary).
        .systemLibrary(name: "CSQLiteConfig", providers: [.apt(["libsqlite3-dev"])]),
        // libxcrypt's crypt_rn and libargon2: imported MD5/SHA/DES crypt and argon2 hashes (Passwords/Legacy).
        .systemLibrary(name: "CXCrypt", providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "CArgon2", providers: [.apt(["libargon2-dev"])]),
        // libcurl as a Swift module: the header's typed wrappers stand in for the variadic curl_easy_setopt/getinfo.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The one outbound client (SMTP relay, social providers, webhooks): the only place libcurl is used.
        .target(
            name: "CaptureOutbound",
            dependencies: [
                "CCurl",
                "CaptureCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Hummingbird application: routes, rendering, middleware.
        .target(
            name: "CaptureServer",
            dependencies: [
                "CaptureCore",
                "CaptureJSON",
                "CaptureStorage",
                "CaptureOutbound",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        .executableTarget(
            name: "capture-server",
            dependencies: [
                "CaptureServer",
                // Its event loops become Swift's global executor (CaptureServerCommand.swift).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // capturectl's commands live in a library so tests can call them directly.
        .target(
            name: "CaptureCLI",
            dependencies: [
                "CaptureCore",
                "CaptureJSON",
                "CaptureStorage",
                // --server: the admin API over the one outbound client.
                "CaptureOutbound",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "capturectl", dependencies: ["CaptureCLI"]),
        // The benchmark's helper (docs/benchmarks.md): token seeding through the project's own types, raw bcrypt rate.
        .executableTarget(
            name: "capture-bench",
            dependencies: [
                "CaptureCore",
                "CaptureStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ]
        ),
        // posix_spawn for the tests' child processes (TestProcess; Foundation's Process.run() can crash on Linux).
        .target(name: "CTestSpawn", path: "Tests/CTestSpawn"),
        // Fixtures shared by the test targets: a movable clock, a service on a temporary database, child processes.
        .target(
            name: "CaptureTestSupport",
            dependencies: [
                "CTestSpawn", "CaptureCore", "CaptureStore", "CaptureStorage", "CapturePostgres",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Support",
            // The launcher the Python fixture servers start through (FixtureServer.swift).
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "CaptureJSONTests", dependencies: ["CaptureJSON"]),
        .testTarget(name: "CaptureCBORTests", dependencies: ["CaptureCBOR", "CaptureTestSupport"]),
        .testTarget(
            name: "CaptureCoreTests",
            dependencies: [
                "CaptureCore", "CaptureJSON", "CaptureCBOR", "CaptureTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                // UseCases/: CaptureService on a real store made per test (TestWorld), its rows read back through GRDB.
                "CaptureStore", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CaptureStoreTests",
            dependencies: [
                "CaptureStore", "CapturePostgres", "CaptureStorage", "CaptureCore", "CaptureCache", "CaptureTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "CaptureServerTests",
            dependencies: [
                "CaptureServer",
                "CaptureStore",
                "CaptureStorage",
                "CaptureCore",
                "CaptureTestSupport",
                "CaptureOutbound",
                .product(name: "Hummingbird", package: "hummingbird"),
                // NIOAsyncTestingChannel: the channel behind an in-process request (Support/RouterClient.swift).
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Pages' gzip bodies read back (PageDeliveryTests).
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            // Fixtures holds the script that runs a real OpenID Connect provider on loopback.
            exclude: ["Fixtures"]
        ),
        // Runs against real servers on loopback (aiosmtpd, Python's http.server); Fixtures holds their scripts.
        .testTarget(
            name: "CaptureOutboundTests",
            dependencies: ["CaptureOutbound", "CaptureCore", "CaptureTestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CaptureCLITests",
            dependencies: [
                "CaptureCLI", "CaptureStore", "CaptureCore", "CaptureTestSupport", "CaptureOutbound",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// Our async functions run on their caller's executor unless marked `@concurrent` (SE-0461): on the server that is
// the connection's event loop, and each call into a nonisolated async function was otherwise one more trip through
// the loop's task queue (docs/adr/0038-hot-paths-without-hops.md).
for target in package.targets where target.type != .system && !target.name.hasPrefix("CCurl") && target.name != "CTestSpawn" {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
}
