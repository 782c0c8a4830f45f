import FlowKit
import Foundation
import Testing

@testable import WellflowComposition

/// A closed app lets go of everything it opened: `wellflow run` opens one app per
/// script run, so anything a run keeps alive (its SQLite database above all) piles up
/// over thousands of runs. The database is a file here, so nothing but the app holds it
/// (a run's in-memory database goes back to a pool for reuse).
@MainActor
@Suite("Releasing a closed app")
struct ReleaseTests {
  /// Open only; launched; a step taken; a query read: every stage of a short run.
  @Test(arguments: 0...3)
  func aClosedAppReleasesItsHostAndDatabase(stage: Int) async throws {
    weak var weakApp: AppContainer?
    weak var weakHost: FlowHost?
    weak var weakWriter: AnyObject?
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("release-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
      let app = container(try WellflowFeatures.makeRegistry(), storage: .sqlite, directory: directory)
      let host = try app.open()
      weakApp = app
      weakHost = host
      weakWriter = try #require(app.database).writer as AnyObject
      if stage >= 1 {
        await host.launch()
        await host.settle()
      }
      if stage >= 2 {
        try host.send(.tap("continue"))
        await host.settle()
      }
      if stage >= 3 { #expect(try await host.query("onboarding.completed") == .bool(false)) }
      app.close()
    }
    #expect(weakApp == nil)
    #expect(weakHost == nil)
    #expect(weakWriter == nil, "the database outlives the app (stage \(stage))")
  }
}
