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
    .library(name: "Experiments", targets: ["Experiments"]),
  ],
  targets: [
    .target(name: "FlowKit", path: "Modules/FlowKit/Sources/FlowKit"),
    .target(name: "Experiments", path: "Modules/Experiments/Sources/Experiments"),
    .testTarget(name: "ExperimentsTests", dependencies: ["Experiments"]),
  ],
  swiftLanguageModes: [.v6]
)
