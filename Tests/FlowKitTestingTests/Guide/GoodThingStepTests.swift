// A worked example of the plugin guide (FlowKit.docc/PluginGuide.md): the page shows this code, and
// GuideDocumentationTests checks that it still does, word for word.

import CheckInFlow
import FlowKit
import FlowKitTesting
import MoodTracking
import MoodTrackingTesting
import Testing

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
    #expect(data.contributions[GoodThing.self] == "Lunch outside")
  }

  @Test func theVariantIsRegisteredAfterTheCheckInOrFailsClearly() {
    var registry = FlowRegistry()
    #expect(throws: RegistryError.variantOfUnknownFlow(flow: "checkin", variant: "grateful")) {
      try registry.register(GratefulCheckInFeature.self)
    }
  }
}
