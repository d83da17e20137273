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
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
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
        .executableTarget(
            name: "StrataBench",
            dependencies: ["Strata", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(name: "StrataStacks", dependencies: ["Strata"], swiftSettings: swiftSettings),
        .testTarget(
            name: "StrataStacksTests",
            dependencies: ["StrataStacks", "Strata", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataFetchedResultsTests",
            dependencies: ["StrataFetchedResults", "Strata", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
    ]
)
