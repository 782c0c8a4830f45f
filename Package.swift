// swift-tools-version: 6.0
import PackageDescription

// Foundation's static libraries, in a group because they refer to each other (see the
// `wellflow` executable below).
let staticFoundationGroup =
  ["-Xlinker", "--start-group"]
  + [
    "Foundation", "CoreFoundation", "FoundationInternationalization", "FoundationEssentials",
    "_FoundationCollections", "_FoundationCShims", "_FoundationICU",
  ].flatMap { ["-Xlinker", "-l\($0)"] }
  + ["-Xlinker", "--end-group"]

// One library product per feature module so an app links only what it ships.
// Features depend on FlowKit (and domain modules they truly need) only;
// third-party packages belong to adapters and the app.
let package = Package(
  name: "Wellflow",
  platforms: [.macOS(.v14), .iOS(.v17)],
  products: [
    .library(name: "FlowKit", targets: ["FlowKit"]),
    .library(name: "FlowKitTesting", targets: ["FlowKitTesting"]),
    .library(name: "Onboarding", targets: ["Onboarding"]),
    .library(name: "Storage", targets: ["Storage"]),
    .library(name: "Experiments", targets: ["Experiments"]),
    .library(name: "Journal", targets: ["Journal"]),
    .library(name: "MoodTracking", targets: ["MoodTracking"]),
    .library(name: "CheckInFlow", targets: ["CheckInFlow"]),
    .library(name: "Sync", targets: ["Sync"]),
    // The HTTP transports behind Sync's port: async-http-client (what `wellflow` sends
    // with) and URLSession (what an Apple app links).
    .library(name: "SyncHTTPClient", targets: ["SyncHTTPClient"]),
    .library(name: "SyncURLSession", targets: ["SyncURLSession"]),
    .library(name: "Reminders", targets: ["Reminders"]),
    .library(name: "ProgressBackend", targets: ["ProgressBackend"]),
    .library(name: "WellflowComposition", targets: ["WellflowComposition"]),
    .library(name: "FlowHTML", targets: ["FlowHTML"]),
    // For the libFuzzer harnesses in Tools/Fuzz, a package of their own.
    .library(name: "WellflowCore", targets: ["WellflowCore"]),
    .executable(name: "wellflow", targets: ["wellflow"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // NIO's own modules, named by the transport and by tests that drive NIO handlers on an
    // event loop whose clock they move.
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
  ],
  targets: [
    .target(name: "FlowKit", path: "Modules/FlowKit/Sources/FlowKit"),
    // Test support for feature modules: a host over in-memory ports, driven by actions
    // or script-like steps, with release checks. FlowKit only, so any feature can use it.
    .target(
      name: "FlowKitTesting", dependencies: ["FlowKit"], path: "Modules/FlowKitTesting/Sources/FlowKitTesting"
    ),
    // Screens as HTML and small SVG charts: one renderer for the preview and the reports.
    .target(name: "FlowHTML", dependencies: ["FlowKit"], path: "Modules/FlowHTML/Sources/FlowHTML"),
    .target(name: "Onboarding", dependencies: ["FlowKit"], path: "Modules/Onboarding/Sources/Onboarding"),
    .target(name: "Experiments", dependencies: ["FlowKit"], path: "Modules/Experiments/Sources/Experiments"),
    .target(
      name: "MoodTracking", dependencies: ["FlowKit"], path: "Modules/MoodTracking/Sources/MoodTracking"),
    .target(
      name: "CheckInFlow", dependencies: ["FlowKit", "MoodTracking"],
      path: "Modules/CheckInFlow/Sources/CheckInFlow"
    ),
    .target(
      name: "Journal", dependencies: ["FlowKit"], path: "Modules/Journal/Sources/Journal"
    ),
    .target(
      name: "Storage",
      dependencies: [
        "FlowKit", "MoodTracking", "Journal", "Reminders", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      path: "Modules/Storage/Sources/Storage"
    ),
    .target(
      name: "Reminders", dependencies: ["FlowKit", "MoodTracking"],
      path: "Modules/Reminders/Sources/Reminders"),
    .target(name: "Sync", dependencies: ["FlowKit", "MoodTracking"], path: "Modules/Sync/Sources/Sync"),
    .target(
      name: "SyncHTTPClient",
      dependencies: [
        "Sync", "FlowKit",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
      ],
      path: "Modules/Sync/Sources/SyncHTTPClient"
    ),
    .target(
      name: "SyncURLSession", dependencies: ["Sync", "FlowKit"], path: "Modules/Sync/Sources/SyncURLSession"),
    .target(
      name: "ProgressBackend",
      dependencies: [
        "FlowKit", "Journal",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Modules/ProgressBackend/Sources/ProgressBackend"
    ),
    // The app's composition root: its features and the adapters of their ports. What an
    // app links: no YAML, no server, no command line.
    .target(
      name: "WellflowComposition",
      dependencies: [
        "FlowKit", "Onboarding", "CheckInFlow", "Journal", "MoodTracking", "Reminders", "Storage", "Sync",
      ],
      path: "Modules/WellflowComposition/Sources/WellflowComposition",
      resources: [.copy("Localization")]
    ),
    .target(
      name: "WellflowCore",
      dependencies: [
        "FlowKit", "Onboarding", "CheckInFlow", "Journal", "MoodTracking", "Reminders", "Storage",
        "Experiments", "Sync", "SyncHTTPClient", "WellflowComposition", "ProgressBackend", "FlowHTML",
        .product(name: "Yams", package: "Yams"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        // The preview's Content-Security-Policy names its inline script by its SHA-256.
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      path: "Apps/Wellflow/Sources/WellflowCore"
    ),
    .executableTarget(
      name: "wellflow",
      dependencies: [
        "WellflowCore", "ProgressBackend", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Apps/Wellflow/Sources/wellflow",
      // On Linux the Swift runtime and Foundation are linked into the executable, which is
      // not position-independent and exports no symbols. The dynamic loader then binds
      // 5,500 symbol references and 2,200 relative ones instead of 35,600 and 104,600 across
      // 19 shared libraries (`LD_DEBUG=statistics`): `wellflow --help` takes 4.4 ms of CPU
      // instead of 10.6, a run of one script 14 instead of 22 (`Tools/bench.sh process`).
      // The price is a fixed load address for this one executable. The group names
      // Foundation's static libraries, which refer to each other, because only modules
      // compiled with `-static-stdlib` would name them. lld (in the toolchain) links it:
      // gold warns about a `mktemp` inside static Foundation.
      linkerSettings: [
        .unsafeFlags(
          ["-static-stdlib"] + staticFoundationGroup
            + ["-Xlinker", "--no-export-dynamic", "-Xclang-linker", "-no-pie", "-use-ld=lld"],
          .when(platforms: [.linux]))
      ]
    ),
    .executableTarget(
      name: "sync-crash-helper",
      dependencies: ["Sync", "SyncHTTPClient", "Storage", "MoodTracking", "FlowKit"],
      path: "Tools/SyncCrashHelper"
    ),
    .executableTarget(
      name: "wellflow-bench",
      dependencies: [
        "WellflowCore", "WellflowComposition", "FlowKit", "Onboarding", "Experiments", "MoodTracking",
        "Storage", "Sync", "SyncHTTPClient", "ProgressBackend",
        .product(name: "GRDB", package: "GRDB.swift"),
      ], path: "Tools/Bench"),

    .testTarget(name: "FlowKitTests", dependencies: ["FlowKit", "FlowKitTesting"]),
    .testTarget(name: "FlowHTMLTests", dependencies: ["FlowHTML", "FlowKit"]),
    .testTarget(
      name: "FlowKitTestingTests", dependencies: ["FlowKitTesting", "FlowKit", "CheckInFlow", "MoodTracking"]),
    .testTarget(name: "OnboardingTests", dependencies: ["Onboarding", "FlowKit", "FlowKitTesting"]),
    .testTarget(
      name: "StorageTests",
      dependencies: [
        "Storage", "MoodTracking", "Journal", "Reminders", "FlowKit", "FlowKitTesting",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]
    ),
    .testTarget(
      name: "RemindersTests", dependencies: ["Reminders", "MoodTracking", "FlowKit", "FlowKitTesting"]),
    .testTarget(name: "MoodTrackingTests", dependencies: ["MoodTracking", "FlowKit", "FlowKitTesting"]),
    .testTarget(name: "ExperimentsTests", dependencies: ["Experiments"], exclude: ["Fixtures"]),
    .testTarget(name: "JournalTests", dependencies: ["Journal", "FlowKit", "FlowKitTesting"]),
    .testTarget(
      name: "CheckInFlowTests", dependencies: ["CheckInFlow", "MoodTracking", "FlowKit", "FlowKitTesting"]),
    .testTarget(
      name: "WellflowCompositionTests",
      dependencies: [
        "WellflowComposition", "FlowKit", "FlowKitTesting", "Onboarding", "CheckInFlow", "Journal",
        "MoodTracking", "Reminders", "Storage", "Sync",
      ]),
    .testTarget(
      name: "WellflowCoreTests",
      dependencies: [
        "WellflowCore", "WellflowComposition", "FlowKit", "FlowKitTesting", "Experiments", "ProgressBackend",
        "FlowHTML", "Sync", "Reminders", "Storage",
        .product(name: "GRDB", package: "GRDB.swift"),
      ], exclude: ["Fixtures"]),
    .testTarget(
      name: "SyncTests",
      dependencies: [
        "Sync", "ProgressBackend", "MoodTracking", "Storage", "FlowKit", "Journal",
        "SyncHTTPClient", "SyncURLSession", "sync-crash-helper",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// Async functions that are not isolated run on their caller's actor (SE-0461), instead of
// hopping to the global executor and back at every call.
for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
}
