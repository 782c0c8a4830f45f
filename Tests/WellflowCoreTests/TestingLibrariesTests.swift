import Foundation
import Testing

/// A feature's in-memory adapters are for tests: they live in its `<Feature>Testing`
/// library, and nothing the app or the `wellflow` command is built from links one, so the
/// app, the runner and the explorer run the features' SQLite adapters only.
@Suite struct TestingLibrariesTests {
  /// Every `.target(` and `.executableTarget(` of the manifest: its name and the quoted
  /// names in its `dependencies: [...]` (products given as `.product(name: …)` included).
  static func targets(_ manifest: String) -> [String: [String]] {
    var targets: [String: [String]] = [:]
    for kind in [".target(", ".executableTarget("] {
      for rest in manifest.components(separatedBy: kind).dropFirst() {
        // The call's own arguments: up to the parenthesis that closes it.
        var depth = 1
        let close =
          rest.firstIndex { character in
            if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
            return depth == 0
          } ?? rest.endIndex
        let call = rest[..<close].drop { $0 == " " || $0 == "\n" }
        guard call.hasPrefix("name: \"") else { continue }
        let name = String(call.dropFirst("name: \"".count).prefix { $0 != "\"" })
        var dependencies: [String] = []
        if let start = call.range(of: "dependencies: [") {
          var depth = 1
          var end = start.upperBound
          while end < call.endIndex, depth > 0 {
            if call[end] == "[" { depth += 1 } else if call[end] == "]" { depth -= 1 }
            end = call.index(after: end)
          }
          dependencies = call[start.upperBound..<end].split(separator: "\"", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        targets[name] = dependencies
      }
    }
    return targets
  }

  @Test func theManifestIsReadAsSwiftPMReadsIt() {
    let targets = Self.targets(LibraryProductsTests.manifest)
    #expect(targets["MoodTrackingTesting"] == ["MoodTrackingDomain", "FlowKit", "FlowKitTesting"])
    #expect(targets["wellflow"]?.contains("WellflowCore") == true)
    #expect(targets["Storage"]?.contains("GRDB") == true)
    // A test target is not among them, and a call's arguments end with it.
    #expect(targets["WellflowCoreTests"] == nil)
    #expect(targets["PythonSupport"] == [])
  }

  @Test func everyFeatureWithStorageShipsItsTestingLibrary() {
    let targets = Self.targets(LibraryProductsTests.manifest)
    let products = LibraryProductsTests.libraryTargets(LibraryProductsTests.manifest)
    // The features with storage are the manifest's `<Feature>SQLite` targets: a new one
    // needs no edit here.
    let features = targets.keys.filter { $0.hasSuffix("SQLite") }.map { String($0.dropLast("SQLite".count)) }
    #expect(!features.isEmpty)
    for feature in features {
      #expect(targets["\(feature)Testing"] != nil, "\(feature) has no testing library")
      #expect(
        products["\(feature)Testing"] == ["\(feature)Testing"], "an app's tests cannot link \(feature)Testing"
      )
    }
  }

  @Test func nothingButATestingLibraryLinksOne() {
    let targets = Self.targets(LibraryProductsTests.manifest)
    let testing = Set(targets.keys.filter { $0.hasSuffix("Testing") })
    #expect(testing.contains("FlowKitTesting") && testing.count > 1, "\(testing.sorted())")
    var links: [String] = []
    for (name, dependencies) in targets.sorted(by: { $0.key < $1.key }) where !testing.contains(name) {
      links += dependencies.filter(testing.contains).map { "\(name) links \($0)" }
    }
    #expect(links.isEmpty, "\(links)")
  }
}
