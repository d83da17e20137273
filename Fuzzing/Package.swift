// swift-tools-version: 6.0
import Foundation
import PackageDescription

// libFuzzer targets for Strata's parsers and decoders (issue 12). A separate package, so the
// main package's `swift build` and `swift test` never see them: a libFuzzer executable has no
// `main` of its own (libFuzzer's runtime brings it) and links only with `-sanitize=fuzzer`.
// The folder is not named `Fuzz`: a checkout named `fuzz` would give both packages one identity.
// Build and run them with `scripts/fuzz.sh` (it passes the flag and a scratch path).

/// The main package is this folder's parent; a path dependency's identity is its folder's
/// name, lowercased, whatever the checkout is called.
let strata = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
let strataIdentity = strata.lastPathComponent.lowercased()

let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// One executable per fuzz target, each `Sources/<name>/<name>.swift`.
func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: strataIdentity) },
        // SwiftPM links an executable's `main` to `<module>_main`; each target defines that
        // (it starts libFuzzer's driver), so its one file is declarations, not top-level code.
        swiftSettings: settings + [.unsafeFlags(["-parse-as-library"])]
    )
}

let package = Package(
    name: "StrataFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: strata.path),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"], swiftSettings: settings),
        fuzzTarget("FuzzPredicate", ["Strata"]).withGRDB(),
        fuzzTarget("FuzzStoredValue", ["Strata"]),
        fuzzTarget("FuzzStoredSchema", ["Strata"]),
        fuzzTarget("FuzzChangeFile", ["StrataSync"]),
        fuzzTarget("FuzzEventPayload", ["StrataSync", "Strata"]),
        fuzzTarget("FuzzCloudName", ["StrataSync"]),
        fuzzTarget("FuzzSyncState", ["StrataSync"]),
    ]
)

extension Target {
    /// Adds GRDB (the predicate target prepares the SQL it compiles to).
    func withGRDB() -> Target {
        dependencies.append(.product(name: "GRDB", package: "GRDB.swift"))
        return self
    }
}
