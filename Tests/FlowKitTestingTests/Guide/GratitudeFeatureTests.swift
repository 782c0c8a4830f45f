// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import FlowKit
import FlowKitTesting
import Testing

@MainActor
@Suite("Guide: a gratitude feature")
struct GratitudeFeatureTests {
  let journal = InMemoryGratitudeJournal()

  private func app() throws -> TestHost {
    try TestHost(
      [GratitudeFeature.self], environment: TestEnvironment().providing(GratitudeJournalKey.self, journal))
  }

  @Test func threeGoodThingsAreSavedAndCounted() async throws {
    let app = try app()
    try await app.present("gratitude")
    try await app.run(
      """
      enter entry Coffee with Sam
      tap add
      enter entry A quiet walk
      tap add
      tap save
      """)
    #expect(app.isIdle)
    #expect(app.ending(of: "gratitude")?.output as? [String] == ["Coffee with Sam", "A quiet walk"])
    #expect(try await app.query("gratitude.count") == .number(1))
  }

  @Test func addWaitsForTextAndSaveForAnItem() async throws {
    let app = try app()
    try await app.present("gratitude")
    #expect(app.screen?.element("add")?.isEnabled == false)
    #expect(app.screen?.element("save")?.isEnabled == false)
    await #expect(throws: FlowTestError.self) { try await app.run("tap save") }
    try await app.run("enter entry   ")
    #expect(app.screen?.element("add")?.isEnabled == false, "blank text is not a good thing")
  }

  @Test func theCoordinatorIsReleasedAfterEachEnding() async throws {
    let world = TestEnvironment().providing(GratitudeJournalKey.self, journal)
    let saved = FlowDriver { work in
      GratitudeCoordinator(context: world.context(for: "gratitude", work: work))
    }
    try await saved.run("enter entry Sun", "tap add", "tap save")
    #expect(saved.output == ["Sun"])
    try saved.expectReleased()

    let closed = FlowDriver { work in
      GratitudeCoordinator(context: world.context(for: "gratitude", work: work))
    }
    try await closed.run("close")
    #expect(closed.wasCancelled)
    try closed.expectReleased()
  }

  @Test func composingWithoutTheJournalNamesTheFeatureAndThePort() {
    #expect(
      throws: CompositionError.missingServices([
        ServiceRequirement(GratitudeJournalKey.self, feature: "GratitudeFeature")
      ])
    ) {
      try TestHost([GratitudeFeature.self])
    }
  }

}
