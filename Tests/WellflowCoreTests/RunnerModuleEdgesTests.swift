import Foundation
import Testing

/// The runner's targets depend one way: the script language (and the runner that executes
/// it) at the bottom, the explorer and the reports on it but never on each other, the
/// commands on all three, the preview above the commands. None names a feature.
@Suite("Runner module edges")
struct RunnerModuleEdgesTests {
  private static let sources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Apps/Wellflow/Sources")

  /// The modules the Swift files of a target's folder, subfolders included, import.
  private static func imports(of target: String) throws -> Set<String> {
    let directory = sources.appendingPathComponent(target)
    var modules: Set<String> = []
    for path in try FileManager.default.subpathsOfDirectory(atPath: directory.path)
    where path.hasSuffix(".swift") {
      let source = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
      for line in source.split(separator: "\n") where line.hasPrefix("import ") {
        modules.insert(String(line.dropFirst("import ".count)))
      }
    }
    return modules
  }

  private static let features: Set<String> = [
    "Onboarding", "CheckInFlow", "Journal", "JournalCatalog", "MoodTracking", "MoodTrackingDomain",
    "Reminders",
    "MoodTrackingSQLite", "JournalSQLite", "RemindersSQLite", "MoodTrackingSync", "JournalSync",
  ]

  @Test(arguments: [
    ("WellflowScript", ["WellflowExplorer", "WellflowReports", "WellflowCore", "WellflowPreview"]),
    ("WellflowExplorer", ["WellflowReports", "WellflowCore", "WellflowPreview"]),
    ("WellflowReports", ["WellflowExplorer", "WellflowCore", "WellflowPreview"]),
    ("WellflowCore", ["WellflowPreview"]),
  ])
  func importsNothingAboveIt(target: String, above: [String]) throws {
    let imports = try Self.imports(of: target)
    #expect(imports.contains("FlowKit"), "the folder of \(target) was read")
    #expect(imports.isDisjoint(with: above), "\(target) imports \(imports.intersection(above).sorted())")
    #expect(
      imports.isDisjoint(with: Self.features),
      "\(target) names \(imports.intersection(Self.features).sorted())")
  }

  /// The explorer and the reports stand on the script language, the commands on all three.
  @Test func theArrowsPointDown() throws {
    #expect(try Self.imports(of: "WellflowExplorer").contains("WellflowScript"))
    #expect(try Self.imports(of: "WellflowReports").contains("WellflowScript"))
    #expect(
      try Self.imports(of: "WellflowCore").isSuperset(of: [
        "WellflowScript", "WellflowExplorer", "WellflowReports",
      ]))
  }
}
