// swift-tools-version: 6.0
import PackageDescription

/// Settings every target shares: Swift 6 language mode (strict concurrency) is the
/// package default for tools version 6; upcoming features are turned on once, here.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataStacks", targets: ["StrataStacks"]),
        .library(name: "StrataFetchedResults", targets: ["StrataFetchedResults"]),
        .library(name: "StrataSync", targets: ["StrataSync"]),
        .library(name: "StrataSyncServers", targets: ["StrataSyncServers"]),
        .executable(name: "Sandbox", targets: ["Sandbox"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
        // StrataSyncServers only (issue 10): the HTTP client for WebDAV and S3, and the
        // hashes, HMAC, AES-GCM and scrypt of S3's signatures and of encryption.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        // The HTTP types and byte buffers the client's API speaks (already under AsyncHTTPClient).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        // `swift package generate-documentation` (scripts/docs.sh); no code depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "Strata",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "StrataFetchedResults", dependencies: ["Strata"], swiftSettings: swiftSettings),
        // The one seeded generator of the Sandbox and the tests (not a product).
        .target(name: "StrataRandom", swiftSettings: swiftSettings),
        .target(name: "StrataStacks", dependencies: ["Strata"], swiftSettings: swiftSettings),
        // Ensemble sync over a dumb cloud file store (a folder, WebDAV, S3): no HTTP stack here.
        .target(
            name: "StrataSync",
            dependencies: ["Strata", "StrataStacks", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        // Sync through real servers (WebDAV, S3-compatible) and encryption: its own product, so
        // a user of StrataSync with a folder does not build an HTTP stack.
        .target(
            name: "StrataSyncServers",
            dependencies: [
                "StrataSync",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Real servers for the tests and the Sandbox's `--backend` (nginx with WebDAV, moto's
        // S3) started on loopback and stopped afterwards, and the child-process launcher they and
        // the multi-process tests use; not a product.
        .target(name: "StrataTestServers", path: "Tests/StrataTestServers", swiftSettings: swiftSettings),
        // The Sandbox: scenarios, metrics, heartbeat and report in a library (so tests run
        // small-N scenarios in-process), and a thin executable that parses the command line.
        .target(
            name: "SandboxKit",
            dependencies: [
                "Strata", "StrataStacks", "StrataFetchedResults", "StrataRandom", "StrataSync", "StrataSyncServers", "StrataTestServers",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Sandbox/SandboxKit",
            swiftSettings: swiftSettings
        ),
        // Ensembles' seed app rebuilt on Strata (issue 13): `swift run SeedApp --demo`.
        .executableTarget(
            name: "SeedApp",
            dependencies: ["Strata", "StrataStacks", "StrataSync"],
            path: "Examples/SeedApp",
            swiftSettings: swiftSettings
        ),
        // A child process for the multi-process and crash tests (Tests/StrataTests/MultiProcessTests.swift); not a product.
        .executableTarget(name: "StrataProcessProbe", dependencies: ["Strata", "StrataSync", "StrataRandom"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "Sandbox",
            dependencies: ["SandboxKit", "StrataStacks", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sandbox/Main",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxTests",
            dependencies: ["SandboxKit", "Strata", "StrataStacks", "StrataFetchedResults", "StrataRandom", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataStacksTests",
            dependencies: ["StrataStacks", "Strata", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        // A fault-injecting SQLite VFS for the I/O error tests (C; not a product).
        .target(name: "StrataFaultVFS", path: "Tests/StrataFaultVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", "StrataSync", "StrataRandom", "StrataFaultVFS", "StrataTestServers", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "GRDBSQLite", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataSyncTests",
            dependencies: [
                "StrataSync", "StrataSyncServers", "StrataTestServers", "Strata", "StrataStacks", "StrataRandom",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataSyncServersTests",
            dependencies: [
                "StrataSyncServers", "StrataSync", "StrataTestServers", "Strata", "StrataStacks", "StrataRandom",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataFetchedResultsTests",
            dependencies: ["StrataFetchedResults", "Strata", "StrataRandom", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
    ]
)
