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
    .library(name: "Journal", targets: ["Journal"]),
  ],
  targets: [
    .target(name: "FlowKit", path: "Modules/FlowKit/Sources/FlowKit"),
    .target(
      name: "Journal", dependencies: ["FlowKit"], path: "Modules/Journal/Sources/Journal",
      resources: [.process("Resources")]),
    .testTarget(name: "JournalTests", dependencies: ["Journal", "FlowKit"], path: "Tests/JournalTests"),
  ],
  swiftLanguageModes: [.v6]
)
