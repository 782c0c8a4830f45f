import Foundation
import Testing

/// Storage, sync, reminders, the check-in and the mood ports' testing library link the mood domain, not the mood flows: their targets
/// name `MoodTrackingDomain`, never `MoodTracking`, and their sources import only it.
@Suite("Mood module edges")
struct MoodModuleEdgesTests {
  private static let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The dependencies a target of Package.swift declares, as written between its name and its path.
  private static func dependencies(of target: String) throws -> String {
    let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
    // The target's own `name:`, not its library product's (`.library(name: …` on one line).
    let start = try #require(
      manifest.ranges(of: "name: \"\(target)\",").first {
        !manifest[manifest.lineRange(for: $0)].contains(".library(")
      })
    let end = try #require(manifest.range(of: "path:", range: start.upperBound..<manifest.endIndex))
    return String(manifest[start.upperBound..<end.lowerBound])
  }

  /// The modules the Swift files of a source folder import.
  private static func imports(under folder: String) throws -> Set<String> {
    let directory = repository.appendingPathComponent(folder)
    var modules: Set<String> = []
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
    where name.hasSuffix(".swift") {
      let source = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
      for line in source.split(separator: "\n") where line.hasPrefix("import ") {
        modules.insert(String(line.dropFirst("import ".count)))
      }
    }
    return modules
  }

  @Test(arguments: [
    ("MoodTrackingSQLite", "Modules/MoodTracking/Sources/MoodTrackingSQLite"),
    ("MoodTrackingSync", "Modules/MoodTracking/Sources/MoodTrackingSync"),
    ("Reminders", "Modules/Reminders/Sources/Reminders"),
    ("CheckInFlow", "Modules/CheckInFlow/Sources/CheckInFlow"),
    ("MoodTrackingTesting", "Modules/MoodTracking/Sources/MoodTrackingTesting"),
  ])
  func linksTheDomainNotTheFlows(target: String, folder: String) throws {
    let dependencies = try Self.dependencies(of: target)
    #expect(dependencies.contains("\"MoodTrackingDomain\""))
    #expect(!dependencies.contains("\"MoodTracking\""), "\(target) links the mood flows")
    let imports = try Self.imports(under: folder)
    #expect(imports.contains("MoodTrackingDomain"))
    #expect(!imports.contains("MoodTracking"))
  }

  /// The domain itself needs nothing but FlowKit: no flow, no storage.
  @Test func theDomainDependsOnFlowKitOnly() throws {
    #expect(try Self.dependencies(of: "MoodTrackingDomain").contains("dependencies: [\"FlowKit\"]"))
    #expect(
      try Self.imports(under: "Modules/MoodTracking/Sources/MoodTrackingDomain") == ["FlowKit", "Foundation"])
  }
}
