// swift-tools-version: 6.0
import PackageDescription

// libFuzzer harnesses over the two loaders `wellflow run` reads user files with.
// Built apart from the root package, with instrumentation; see README.md and run.sh:
//   swift build -c release --package-path Tools/Fuzz --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer
// Each executable's main.swift starts libFuzzer's driver (LLVMFuzzerRunDriver), because
// SwiftPM points `main` at the module's own entry point rather than libFuzzer's.
let package = Package(
  name: "WellflowFuzz",
  platforms: [.macOS(.v14)],
  dependencies: [
    // Named, so the product below resolves whatever the checkout's folder is called.
    .package(name: "Wellflow", path: "../..")
  ],
  targets: [
    .target(
      name: "WellflowFuzz",
      dependencies: [.product(name: "WellflowScript", package: "Wellflow"), "CLibFuzzer"],
      path: "Sources/WellflowFuzz"
    ),
    .target(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
    .executableTarget(
      name: "wellflow-fuzz-script", dependencies: ["WellflowFuzz", "CLibFuzzer"],
      path: "Sources/wellflow-fuzz-script"),
    .executableTarget(
      name: "wellflow-fuzz-experiment", dependencies: ["WellflowFuzz", "CLibFuzzer"],
      path: "Sources/wellflow-fuzz-experiment"),
  ],
  swiftLanguageModes: [.v6]
)
