// swift-tools-version: 6.0
import PackageDescription

// One library product per feature module so an app links only what it ships.
// Features depend on FlowKit (and domain modules they truly need) only;
// third-party packages belong to adapters and the app.
let package = Package(
  name: "Wellflow",
  platforms: [.macOS(.v14), .iOS(.v17)],
  products: [
    .library(name: "FlowKit", targets: ["FlowKit"]),
    .library(name: "MoodTracking", targets: ["MoodTracking"]),
    .library(name: "Storage", targets: ["Storage"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0")
  ],
  targets: [
    .target(name: "FlowKit", path: "Modules/FlowKit/Sources/FlowKit"),
    .target(
      name: "MoodTracking", dependencies: ["FlowKit"],
      path: "Modules/MoodTracking/Sources/MoodTracking"),
    .target(
      name: "Storage",
      dependencies: ["FlowKit", "MoodTracking", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Modules/Storage/Sources/Storage"),
    .executableTarget(
      name: "wellflow-bench",
      dependencies: ["FlowKit", "MoodTracking", "Storage", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Tools/Bench"),
    .testTarget(name: "MoodTrackingTests", dependencies: ["MoodTracking", "FlowKit"]),
    .testTarget(
      name: "StorageTests",
      dependencies: ["Storage", "MoodTracking", "FlowKit", .product(name: "GRDB", package: "GRDB.swift")]),
  ],
  swiftLanguageModes: [.v6]
)
