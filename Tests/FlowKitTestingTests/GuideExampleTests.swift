// The tests of Modules/FlowKit/README.md. Keep the two in step.

import CheckInFlow
import FlowKit
import FlowKitTesting
import MoodTracking
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

@MainActor
@Suite("Guide: a new check-in step")
struct GoodThingStepTests {
  private func app(_ features: [any FlowFeature.Type]) throws -> TestHost {
    let world = TestEnvironment(settings: ["onboarding.completed": "true"])
      .providing(MoodRepositoryKey.self, InMemoryMoodRepository())
      .providing(StateOfMindStoreKey.self, InMemoryStateOfMindStore())
    return try TestHost(features, environment: world)
  }

  @Test func theGratefulVariantAsksForOneGoodThing() async throws {
    let app = try app([CheckInFeature.self, GratefulCheckInFeature.self])
    #expect(app.registry.flow("checkin")?.variants == ["full", "quick", "grateful"])
    try await app.present("checkin", variant: "grateful")
    try await app.run("tap continue", "select emotion calm", "tap continue")
    #expect(app.screenID == "checkin.goodThing")
    #expect(app.screen?.progress == StepProgress(index: 3, count: 4))
    #expect(app.screen?.element("continue")?.isEnabled == false)
    try await app.run("enter goodThing Lunch outside", "back", "tap continue")
    #expect(app.screen?.element("goodThing")?.value == .text("Lunch outside"), "kept through back")
    try await app.run("tap continue", "tap complete")
    let data = try #require(app.ending(of: "checkin")?.output as? MoodCheckInData)
    #expect(data.variant == "grateful")
    #expect(data.emotion == .calm)
  }

  @Test func theVariantIsRegisteredAfterTheCheckInOrFailsClearly() {
    var registry = FlowRegistry()
    #expect(throws: RegistryError.variantOfUnknownFlow(flow: "checkin", variant: "grateful")) {
      try registry.register(GratefulCheckInFeature.self)
    }
  }
}
