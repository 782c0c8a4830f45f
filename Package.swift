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
    // Each feature's in-memory adapters, for the tests of the feature and of what uses it.
    .library(name: "MoodTrackingTesting", targets: ["MoodTrackingTesting"]),
    .library(name: "JournalTesting", targets: ["JournalTesting"]),
    .library(name: "RemindersTesting", targets: ["RemindersTesting"]),
    .library(name: "Onboarding", targets: ["Onboarding"]),
    .library(name: "Storage", targets: ["Storage"]),
    .library(name: "MoodTrackingSQLite", targets: ["MoodTrackingSQLite"]),
    .library(name: "JournalSQLite", targets: ["JournalSQLite"]),
    .library(name: "RemindersSQLite", targets: ["RemindersSQLite"]),
    .library(name: "Experiments", targets: ["Experiments"]),
    .library(name: "StrictJSON", targets: ["StrictJSON"]),
    .library(name: "Journal", targets: ["Journal"]),
    .library(name: "JournalCatalog", targets: ["JournalCatalog"]),
    .library(name: "MoodTracking", targets: ["MoodTracking"]),
    .library(name: "MoodTrackingDomain", targets: ["MoodTrackingDomain"]),
    .library(name: "CheckInFlow", targets: ["CheckInFlow"]),
    .library(name: "Sync", targets: ["Sync"]),
    .library(name: "MoodTrackingSync", targets: ["MoodTrackingSync"]),
    .library(name: "JournalSync", targets: ["JournalSync"]),
    // The HTTP transports behind Sync's port: async-http-client (what `wellflow` sends
    // with) and URLSession (what an Apple app links).
    .library(name: "SyncHTTPClient", targets: ["SyncHTTPClient"]),
    .library(name: "SyncURLSession", targets: ["SyncURLSession"]),
    .library(name: "Reminders", targets: ["Reminders"]),
    // The progress API's wire contract (Modules/ProgressAPI): the OpenAPI document and the
    // wire types server and client share. Not named ProgressAPI: Sync has a protocol of that name.
    .library(name: "ProgressContract", targets: ["ProgressContract"]),
    .library(name: "ProgressBackend", targets: ["ProgressBackend"]),
    .library(name: "WellflowComposition", targets: ["WellflowComposition"]),
    .library(name: "FlowHTML", targets: ["FlowHTML"]),
    // The script language (its loader, checks and runner): for the libFuzzer harnesses in
    // Tools/Fuzz, a package of their own. The commands' glue (WellflowCore, which starts
    // worker processes for --jobs) stays inside the `wellflow` executable.
    .library(name: "WellflowScript", targets: ["WellflowScript", "YAMLTree"]),
    .executable(name: "wellflow", targets: ["wellflow"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // NIO's own modules, named by the transport and by tests that drive NIO handlers on an
    // event loop whose clock they move.
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
    // `swift package generate-documentation`: the DocC catalogs of FlowKit and the runner.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // `serve --database postgres://…`, events and reports in PostgreSQL.
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
  ],
  targets: [
    // A module's screen text ships as its own resource (`Localization/<language>.lproj`).
    .target(name: "FlowKit", path: "Modules/FlowKit/Sources/FlowKit", resources: [.copy("Localization")]),
    // Test support for feature modules: a host over in-memory ports, driven by actions
    // or script-like steps, with release checks. FlowKit only, so any feature can use it.
    .target(
      name: "FlowKitTesting", dependencies: ["FlowKit"], path: "Modules/FlowKitTesting/Sources/FlowKitTesting"
    ),
    // Screens as HTML and small SVG charts: one renderer for the preview and the reports.
    .target(name: "FlowHTML", dependencies: ["FlowKit"], path: "Modules/FlowHTML/Sources/FlowHTML"),
    .target(
      name: "Onboarding", dependencies: ["FlowKit"], path: "Modules/Onboarding/Sources/Onboarding",
      resources: [.copy("Localization")]),
    // Strict JSON read from bytes: the backend's request bodies, the events reader and
    // GrowthBook's values. Foundation only.
    .target(name: "StrictJSON", path: "Modules/StrictJSON/Sources/StrictJSON"),
    .target(
      name: "Experiments", dependencies: ["FlowKit", "StrictJSON"],
      path: "Modules/Experiments/Sources/Experiments"
    ),
    // The mood domain (entries, errors, ports, use cases, statistics) without the flows:
    // what storage, sync and reminders link.
    .target(
      name: "MoodTrackingDomain", dependencies: ["FlowKit"],
      path: "Modules/MoodTracking/Sources/MoodTrackingDomain"),
    .target(
      name: "MoodTracking", dependencies: ["FlowKit", "MoodTrackingDomain"],
      path: "Modules/MoodTracking/Sources/MoodTracking", resources: [.copy("Localization")]),
    // The mood ports in memory, for tests; no app links it.
    .target(
      name: "MoodTrackingTesting", dependencies: ["MoodTrackingDomain", "FlowKit", "FlowKitTesting"],
      path: "Modules/MoodTracking/Sources/MoodTrackingTesting"),
    .target(
      name: "CheckInFlow", dependencies: ["FlowKit", "MoodTrackingDomain"],
      path: "Modules/CheckInFlow/Sources/CheckInFlow", resources: [.copy("Localization")]
    ),
    // The journal's catalog as data: what the server checks journal entries against,
    // without the flows.
    .target(name: "JournalCatalog", path: "Modules/Journal/Sources/JournalCatalog"),
    .target(
      name: "Journal", dependencies: ["FlowKit", "JournalCatalog"], path: "Modules/Journal/Sources/Journal",
      resources: [.copy("Localization")]
    ),
    .target(
      name: "JournalTesting", dependencies: ["Journal", "FlowKit"],
      path: "Modules/Journal/Sources/JournalTesting"),
    // Shared SQLite plumbing: opening, WAL, locks, scratch databases, the outbox table and
    // running every registered feature's migrations. It names no feature.
    .target(
      name: "Storage",
      dependencies: [
        "FlowKit", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      path: "Modules/Storage/Sources/Storage"
    ),
    // Each feature's storage adapter and migrations, beside the feature.
    .target(
      name: "MoodTrackingSQLite",
      dependencies: [
        "MoodTrackingDomain", "Storage", "FlowKit", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      path: "Modules/MoodTracking/Sources/MoodTrackingSQLite"
    ),
    .target(
      name: "JournalSQLite",
      dependencies: ["Journal", "Storage", "FlowKit", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Modules/Journal/Sources/JournalSQLite"
    ),
    .target(
      name: "RemindersSQLite",
      dependencies: ["Reminders", "Storage", "FlowKit", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Modules/Reminders/Sources/RemindersSQLite"
    ),
    .target(
      name: "Reminders", dependencies: ["FlowKit", "MoodTrackingDomain"],
      path: "Modules/Reminders/Sources/Reminders", resources: [.copy("Localization")]),
    .target(
      name: "RemindersTesting", dependencies: ["Reminders", "FlowKit"],
      path: "Modules/Reminders/Sources/RemindersTesting"),
    // The generic outbox sender and puller; each feature registers its resources.
    .target(name: "Sync", dependencies: ["FlowKit", "ProgressContract"], path: "Modules/Sync/Sources/Sync"),
    // Each feature's sync resource, beside the feature: its rows in the contract's words.
    .target(
      name: "MoodTrackingSync", dependencies: ["MoodTrackingDomain", "Sync", "ProgressContract", "FlowKit"],
      path: "Modules/MoodTracking/Sources/MoodTrackingSync"
    ),
    .target(
      name: "JournalSync", dependencies: ["Journal", "Sync", "ProgressContract", "FlowKit"],
      path: "Modules/Journal/Sources/JournalSync"
    ),
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
    // The document is compiled in, so the server answers GET /openapi.yaml wherever it runs.
    .target(
      name: "ProgressContract", dependencies: ["StrictJSON"], path: "Modules/ProgressAPI",
      sources: ["Sources/ProgressContract"],
      resources: [.embedInCode("openapi.yaml")]),
    .target(
      name: "ProgressBackend",
      dependencies: [
        "FlowKit", "JournalCatalog", "ProgressContract", "StrictJSON",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ],
      path: "Modules/ProgressBackend/Sources/ProgressBackend"
    ),
    // The app's composition root: its features and the adapters of their ports. What an
    // app links: no YAML, no server, no command line.
    .target(
      name: "WellflowComposition",
      dependencies: [
        "FlowKit", "Onboarding", "CheckInFlow", "Journal", "MoodTracking", "Reminders", "Storage", "Sync",
        "MoodTrackingSQLite", "JournalSQLite", "RemindersSQLite", "MoodTrackingSync", "JournalSync",
      ],
      path: "Modules/WellflowComposition/Sources/WellflowComposition"
    ),
    // YAML read into positioned values, positioned problems and "did you mean": what script
    // and experiment files are read with, knowing nothing of scripts. libyaml's events only
    // (Yams's C parser), so nothing is expanded.
    .target(
      name: "YAMLTree", dependencies: [.product(name: "Yams", package: "Yams")],
      path: "Apps/Wellflow/Sources/YAMLTree"),
    // The script language and the runner that executes it: scripts, experiment files and
    // GrowthBook payloads read and checked, the commands of the table, the app session a
    // script drives and the embedded backend `sync` talks to; the JSON Schema of both files.
    .target(
      name: "WellflowScript",
      dependencies: [
        "FlowKit", "Experiments", "StrictJSON", "Sync", "SyncHTTPClient", "WellflowComposition",
        "ProgressBackend", "YAMLTree",
      ],
      path: "Apps/Wellflow/Sources/WellflowScript"
    ),
    // The explorer: every reachable state of a flow by breadth-first search on app
    // sessions, the contract's checks on each, the flow's graph, actions as script steps
    // and as `play` reads them, the player's screen.
    .target(
      name: "WellflowExplorer", dependencies: ["FlowKit", "WellflowScript", "YAMLTree"],
      path: "Apps/Wellflow/Sources/WellflowExplorer"),
    // What a run and a report print: the transcript, JSON and JUnit documents, the HTML
    // pages of a run and of an experiment's report. Knows no command and no explorer.
    .target(
      name: "WellflowReports", dependencies: ["FlowKit", "FlowHTML", "Experiments", "WellflowScript"],
      path: "Apps/Wellflow/Sources/WellflowReports"),
    // The commands' shared glue: `run` (jobs, outputs, events), `export`, `flows`, `report`,
    // `plan`, `explore`, `graph` and `play`, the console and output files.
    .target(
      name: "WellflowCore",
      dependencies: [
        // No feature: the commands reach features through `WellflowComposition`'s list.
        "FlowKit", "Storage", "Experiments", "Sync", "SyncHTTPClient", "WellflowComposition",
        "ProgressBackend", "FlowHTML", "StrictJSON", "YAMLTree", "WellflowScript", "WellflowReports",
        "WellflowExplorer",
        // Events and reports in PostgreSQL.
        .product(name: "PostgresNIO", package: "postgres-nio"),
        // A command's configuration is its options, declared once (`ExploreConfiguration`).
        // Linked statically into `wellflow` either way, so start-up is unchanged.
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Apps/Wellflow/Sources/WellflowCore"
    ),
    // `wellflow preview`: the flows in a browser, served on 127.0.0.1. Above the runner: it
    // starts flows as scripts do and copies the steps taken as a script.
    .target(
      name: "WellflowPreview",
      dependencies: [
        "WellflowCore", "WellflowScript", "WellflowExplorer", "FlowKit", "FlowHTML", "Experiments",
        "WellflowComposition", "ProgressBackend",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
        // The page's Content-Security-Policy names its inline script by its SHA-256.
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      path: "Apps/Wellflow/Sources/WellflowPreview"
    ),
    .executableTarget(
      name: "wellflow",
      dependencies: [
        "WellflowCore", "WellflowScript", "WellflowPreview", "ProgressBackend",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
      dependencies: [
        "Sync", "SyncHTTPClient", "Storage", "MoodTracking", "MoodTrackingSQLite", "FlowKit",
        "WellflowComposition",
      ],
      path: "Tools/SyncCrashHelper"
    ),
    .executableTarget(
      name: "wellflow-bench",
      dependencies: [
        "WellflowCore", "WellflowScript", "WellflowComposition", "FlowKit", "Onboarding", "Experiments",
        "MoodTracking",
        "Storage", "Sync", "SyncHTTPClient", "ProgressBackend", "MoodTrackingSQLite", "StrictJSON",
        .product(name: "GRDB", package: "GRDB.swift"),
      ], path: "Tools/Bench", exclude: ["PERFORMANCE.md"]),

    .testTarget(name: "FlowKitTests", dependencies: ["FlowKit", "FlowKitTesting"]),
    .testTarget(
      name: "ProgressContractTests",
      dependencies: ["ProgressContract", "JournalCatalog", .product(name: "Yams", package: "Yams")]),
    .testTarget(name: "FlowHTMLTests", dependencies: ["FlowHTML", "FlowKit"]),
    .testTarget(
      name: "FlowKitTestingTests",
      dependencies: [
        "MoodTrackingTesting",
        "FlowKitTesting", "FlowKit", "CheckInFlow", "MoodTracking",
        // The guide's gratitude storage and its test host; its sync and the server it syncs to;
        // `wellflow export` of the app with the guide's features added.
        "Storage", "WellflowComposition", .product(name: "GRDB", package: "GRDB.swift"),
        "Sync", "SyncHTTPClient", "ProgressBackend", "WellflowCore",
      ],
      resources: [.copy("Localization")]),
    .testTarget(name: "OnboardingTests", dependencies: ["Onboarding", "FlowKit", "FlowKitTesting"]),
    .testTarget(
      name: "StorageTests",
      dependencies: [
        "MoodTrackingTesting",
        "Storage", "MoodTracking", "Journal", "Reminders", "FlowKit", "FlowKitTesting",
        "MoodTrackingSQLite", "JournalSQLite", "RemindersSQLite", "WellflowComposition",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "RemindersTests",
      dependencies: [
        "MoodTrackingTesting", "RemindersTesting", "Reminders", "MoodTracking", "FlowKit", "FlowKitTesting",
      ]),
    .testTarget(
      name: "MoodTrackingTests",
      dependencies: [
        "MoodTrackingTesting", "MoodTracking", "MoodTrackingDomain", "FlowKit", "FlowKitTesting",
      ]),
    .testTarget(
      name: "ExperimentsTests", dependencies: ["Experiments", "StrictJSON", "PythonSupport"],
      exclude: ["Fixtures"]),
    .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"]),
    // `python3` for the tests that compare with a Python reference.
    .target(name: "PythonSupport", path: "Tests/Support/PythonSupport"),
    .testTarget(
      name: "JournalTests", dependencies: ["JournalTesting", "Journal", "FlowKit", "FlowKitTesting"]),
    .testTarget(
      name: "CheckInFlowTests",
      dependencies: ["MoodTrackingTesting", "CheckInFlow", "MoodTracking", "FlowKit", "FlowKitTesting"]),
    .testTarget(
      name: "WellflowCompositionTests",
      dependencies: [
        "MoodTrackingTesting",
        "WellflowComposition", "FlowKit", "FlowKitTesting", "Onboarding", "CheckInFlow", "Journal",
        "MoodTracking", "Reminders", "Storage", "Sync", "MoodTrackingSync",
      ]),
    .testTarget(name: "YAMLTreeTests", dependencies: ["YAMLTree"]),
    // Scripts' workspaces and test flows (the lab: every kind of input; flows that break
    // the contract; small flows whose exploration is known), shared by the script
    // language's, the explorer's, the reports' and the commands' tests.
    .target(
      name: "ScriptTestSupport", dependencies: ["FlowKit", "WellflowScript", "WellflowExplorer", "YAMLTree"],
      path: "Tests/Support/ScriptTestSupport"),
    .testTarget(
      name: "WellflowScriptTests",
      dependencies: [
        "WellflowScript", "ScriptTestSupport", "FlowKit", "Experiments", "WellflowComposition", "YAMLTree",
        "PythonSupport",
      ]),
    .testTarget(
      name: "WellflowExplorerTests",
      dependencies: [
        "WellflowExplorer", "WellflowScript", "ScriptTestSupport", "FlowKit", "WellflowComposition",
      ]),
    .testTarget(
      name: "WellflowReportsTests",
      dependencies: [
        "WellflowReports", "WellflowScript", "ScriptTestSupport", "FlowKit", "Experiments", "YAMLTree",
      ]),
    .testTarget(
      name: "WellflowCoreTests",
      dependencies: [
        "WellflowCore", "WellflowScript", "WellflowReports", "WellflowExplorer", "ScriptTestSupport",
        "WellflowPreview", "WellflowComposition",
        "FlowKit",
        "FlowKitTesting", "Experiments",
        "ProgressBackend", "FlowHTML", "Sync", "Reminders", "Storage", "MoodTrackingSQLite", "JournalSQLite",
        "StrictJSON", "PythonSupport", "YAMLTree",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ], exclude: ["Fixtures"]),
    .testTarget(
      name: "SyncTests",
      dependencies: [
        "FlowKitTesting", "MoodTrackingTesting",
        "Sync", "ProgressBackend", "MoodTracking", "Storage", "FlowKit", "Journal",
        "SyncHTTPClient", "SyncURLSession", "sync-crash-helper", "MoodTrackingSQLite", "WellflowComposition",
        "MoodTrackingSync", "JournalSync", "StrictJSON",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// Async functions that are not isolated run on their caller's actor (SE-0461), instead of
// hopping to the global executor and back at every call.
// In release, code that names a generic type (a `Set` of one of its own types, say) gets
// its metadata from the type's accessor, given the conformances, instead of by its
// mangled name: the runtime checks a mangled name's requirements by scanning every
// protocol conformance in the binary (12,300 records, about 0.2 ms for each new pair),
// which a script run's start-up paid dozens of times.
// Unsafe flags make every library product that holds them unusable as a versioned
// dependency ("the target … contains unsafe build flags"), so this one applies only when
// Wellflow is the package being built (a clone), never when an app builds it from its
// checkouts folder (SwiftPM's `.build/checkouts`, Xcode's `SourcePackages/checkouts`).
let builtAsADependency = Context.packageDirectory.contains("/checkouts/")
for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
    + (builtAsADependency
      ? []
      : [
        .unsafeFlags(
          ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
          .when(platforms: [.linux], configuration: .release))
      ])
}
