// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import FlowKitTesting
import Foundation
import Storage
import Testing
import WellflowComposition

@MainActor
@Suite("Guide: the gratitude feature's own table")
struct GratitudeStorageTests {
  /// The app's features and this one: its storage comes from the same one list.
  let features = WellflowFeatures.all + [GratitudeFeature.self, GratitudeStorage.self]

  @Test func listsAreKeptInTheFeaturesTableAndExported() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gratitude-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    // A file the app wrote without the feature gets its table when the feature is added.
    _ = try WellflowDatabase.open(directory: directory, schema: WellflowFeatures.schema)
    let database = try WellflowDatabase.open(directory: directory, schema: SQLiteSchema(features.storage))

    let world = TestEnvironment().providing(
      GratitudeJournalKey.self, SQLiteGratitudeJournal(writer: database.writer))
    let app = try TestHost([GratitudeFeature.self], environment: world)
    try await app.present("gratitude")
    try await app.run("enter entry Sun", "tap add", "enter entry Tea", "tap add", "tap save")
    #expect(try await app.query("gratitude.count") == .number(1))

    let export = try #require(features.storage.compactMap(\.export).last)
    #expect(export.type == "gratitude")
    let rows = try await export.read(
      database, "user-1", DateInterval(start: .distantPast, end: .distantFuture))
    #expect(rows.map(\.values) == [["items": .list(["Sun", "Tea"])]])
  }

  /// Its strings ship with it, in both of the app's languages.
  @Test func itsScreenTextIsTranslatedFromItsOwnTables() throws {
    #expect(WellflowLocalization.missingTables(features: features).isEmpty)
    let german = try WellflowLocalization.loadTable("de", features: features)
    #expect(german.entries["Three good things"] == "Drei gute Dinge")
  }
}
