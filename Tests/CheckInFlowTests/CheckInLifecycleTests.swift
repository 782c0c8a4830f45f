import CheckInFlow
import FlowKit
import Foundation
import MoodTracking
import Testing

/// How a test ends a check-in.
enum Ending: String, CaseIterable, Sendable {
  case complete, journal, exit
}

@MainActor
struct CheckInLifecycleTests {
  nonisolated static let fullScreens = [
    "checkin.sensing", "checkin.naming", "checkin.shaping", "checkin.attributing", "checkin.evaluating",
    "checkin.acting",
  ]
  nonisolated static let quickScreens = ["checkin.sensing", "checkin.naming", "checkin.acting"]

  @Test(arguments: fullScreens)
  func theFullCheckInIsReleasedAfterExitFromEveryStep(screenID: String) async throws {
    let harness = Harness()
    try await harness.walk(to: screenID)
    try await harness.send(.close)
    #expect(harness.screen.alert?.id == "checkin.confirmExit")
    try await harness.send(.tap("exit"))
    #expect(harness.wasCancelled)
    #expect(harness.flow == nil)
    #expect(harness.world.entries().isEmpty, "exit saves nothing")
  }

  @Test(arguments: quickScreens)
  func theQuickCheckInIsReleasedAfterExitFromEveryStep(screenID: String) async throws {
    let harness = Harness(variant: .quick)
    try await harness.walk(to: screenID)
    try await harness.send(.close)
    try await harness.send(.tap("exit"))
    #expect(harness.wasCancelled)
    #expect(harness.flow == nil)
    #expect(harness.world.entries().isEmpty)
  }

  @Test(arguments: ["full", "quick"], [Ending.complete, .journal])
  func bothVariantsAreReleasedAfterCompleting(variant: String, ending: Ending) async throws {
    let harness = Harness(variant: variant == "full" ? .full : .quick)
    try await harness.walk(to: "checkin.acting")
    try await harness.send(.tap(ending.rawValue))
    let data = try #require(harness.data)
    #expect(data.variant == variant)
    #expect(data.wantsJournal == (ending == .journal))
    #expect(harness.flow == nil)
    #expect(harness.world.entries().count == 1)
  }

  @Test(arguments: [UserAction.close, .tap("close")])
  func closingThePetCancelsAtOnceAndDoesNotRetireIt(action: UserAction) async throws {
    let world = World()
    let harness = Harness(world)
    #expect(harness.screen.id == "checkin.pet")
    #expect(harness.screen.progress == nil)
    try await harness.send(action)
    #expect(harness.wasCancelled)
    #expect(harness.flow == nil)
    #expect(world.petSeen == false)
    #expect(Harness(world).screen.id == "checkin.pet", "the Pet is shown until begin was tapped once")
  }

  @Test func beginningOnceRetiresThePetEvenIfTheCheckInIsLeft() async throws {
    let world = World()
    let first = Harness(world)
    try await first.send(.tap("begin"))
    #expect(world.petSeen)
    try await first.send(.close)
    try await first.send(.tap("exit"))
    let second = Harness(world)
    #expect(second.screen.id == "checkin.sensing")
    #expect(second.screen.progress == StepProgress(index: 1, count: 6))
    #expect(second.screen.canGoBack == false)
  }

  @Test func stayKeepsTheStepAndItsInputs() async throws {
    let harness = Harness()
    try await harness.walk(to: "checkin.sensing")
    try await harness.send(.set("score", 3))
    try await harness.send(.close)
    #expect(throws: ActionError.self) { try harness.running.send(.tap("continue")) }
    try await harness.send(.tap("stay"))
    #expect(harness.screen.alert == nil)
    #expect(harness.screen.id == "checkin.sensing")
    #expect(harness.screen.element("score")?.value == .number(3))
    #expect(harness.endings.isEmpty)
  }

  @Test func completionRunsOnce() async throws {
    let harness = Harness(variant: .quick)
    try await harness.walk(to: "checkin.acting")
    let flow = try harness.running
    try flow.send(.tap("complete"))
    // While the save is in flight every input is disabled, so a second tap is refused.
    #expect(flow.screen.elements.allSatisfy { !$0.isEnabled })
    #expect(flow.screen.canGoBack == false)
    #expect(flow.screen.canClose == false)
    #expect(throws: ActionError.self) { try flow.send(.tap("journal")) }
    #expect(throws: ActionError.self) { try flow.send(.close) }
    await harness.work.settle()
    #expect(harness.endings.count == 1)
    #expect(throws: ActionError(screen: "checkin.acting", element: "complete", problem: .flowEnded)) {
      try flow.send(.tap("complete"))
    }
    flow.cancel(.user)
    #expect(harness.endings.count == 1)
    #expect(harness.world.entries().count == 1)
  }

  @Test func theSaveGoesThroughTheMoodUseCase() async throws {
    let world = World()
    let harness = Harness(world, trigger: .notification)
    try await harness.walk(to: "checkin.sensing")
    try await harness.send(.set("score", 8))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("emotion", ["happy"]))
    try await harness.send(.select("labels", ["grateful", "happy"]))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("prompt", ["source"]))
    try await harness.send(.enter("response", "  Slept well.  "))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("associations", ["health", "weather"]))
    try await harness.send(.tap("continue"))
    try await harness.send(.select("evaluation", ["accept"]))
    try await harness.send(.tap("continue"))
    try await harness.send(.tap("complete"))

    let entry = try #require(world.entries().first)
    #expect(world.entries().count == 1)
    #expect(entry.score == 8)
    #expect(abs(entry.valence - 7.0 / 4.5 + 1) < 1e-9)
    #expect(entry.labels == [.happy, .grateful], "the emotion first, not repeated")
    #expect(entry.associations == [.health, .weather])
    #expect(entry.notes == "Slept well.")
    #expect(entry.kind == .momentaryEmotion)
    #expect(entry.userID == "alice")
    #expect(world.health.count(userID: "alice") == 1, "mirrored to the health store")
    #expect(world.repository.outbox.pendingCount(userID: "alice") == 1)

    let data = try #require(harness.data)
    #expect(
      data
        == MoodCheckInData(
          entryID: entry.id, score: 8, valence: entry.valence, emotion: .happy, labels: [.happy, .grateful],
          prompt: .source, response: "Slept well.", associations: [.health, .weather], evaluation: .accept,
          kind: .momentaryEmotion, trigger: .notification, variant: "full", date: world.clock.now))
    #expect(data.emotionDisplayName == "Happy")
    #expect(data.valenceClass == .pleasant)
    #expect(data.nextFlow == nil)
  }

  @Test(arguments: [
    (FlowTrigger.launch, MoodKind.dailyMood), (.manual, .momentaryEmotion),
    (.notification, .momentaryEmotion),
  ])
  func theTriggerChoosesTheKind(trigger: FlowTrigger, kind: MoodKind) async throws {
    let harness = Harness(variant: .quick, trigger: trigger)
    try await harness.walk(to: "checkin.acting")
    try await harness.send(.tap("journal"))
    let data = try #require(harness.data)
    #expect(data.kind == kind)
    #expect(harness.world.entries().first?.kind == kind)
    #expect(data.nextFlow == FlowRequest(flow: "journal", trigger: .manual), "the person chose the journal")
  }

  @Test func checkInsAt2359AndAt0001AreTwoDailyMoods() async throws {
    let world = World(now: "2026-03-02T23:59", zone: "Europe/Berlin")
    let late = Harness(world, variant: .quick, trigger: .launch)
    try await late.walk(to: "checkin.acting")
    try await late.send(.tap("complete"))
    world.clock.advance(by: 120)
    let early = Harness(world, variant: .quick, trigger: .launch)
    try await early.walk(to: "checkin.acting")
    try await early.send(.tap("complete"))
    let entries = world.entries()
    #expect(entries.count == 2)
    #expect(entries.allSatisfy { $0.kind == .dailyMood })
    #expect(entries.map(\.day.description) == ["2026-03-02", "2026-03-03"])
  }

  @Test func aSecondDailyCheckInTheSameDayUpdatesTheDaysMood() async throws {
    let world = World()
    for score in [4.0, 7.0] {
      let harness = Harness(world, variant: .quick, trigger: .launch)
      try await harness.send(.set("score", score))
      try await harness.walk(to: "checkin.acting")
      try await harness.send(.tap("complete"))
      #expect(harness.data != nil)
    }
    #expect(world.entries().map(\.score) == [7])
    #expect(try CheckInKeys.count(in: world.store) == 2, "both check-ins were completed")
  }

  @Test func aFailedSaveShowsTheErrorAndStaysOnActing() async throws {
    let world = World()
    let harness = Harness(world, variant: .quick)
    try await harness.walk(to: "checkin.acting")
    world.repository.failNextSave.withLock { $0 = HarnessError(description: "disk full") }
    try await harness.send(.tap("complete"))
    #expect(harness.screen.id == "checkin.acting")
    #expect(harness.screen.alert?.id == "checkin.error")
    #expect(harness.screen.alert?.buttons.map(\.id) == ["ok"])
    #expect(harness.screen.alert?.message.contains("disk full") == true)
    #expect(harness.endings.isEmpty)
    #expect(throws: ActionError.self) { try harness.running.send(.tap("complete")) }
    try await harness.send(.tap("ok"))
    #expect(harness.screen.alert == nil)
    #expect(harness.screen.element("complete")?.isEnabled == true)
    try await harness.send(.tap("complete"))
    #expect(harness.data != nil)
    #expect(world.entries().count == 1)
    #expect(harness.flow == nil)
  }

  @Test func aCheckInWithoutASignedInUserShowsWhatToDo() async throws {
    let harness = Harness(World(userID: nil), variant: .quick)
    try await harness.walk(to: "checkin.acting")
    try await harness.send(.tap("complete"))
    #expect(harness.screen.alert?.id == "checkin.error")
    #expect(harness.screen.alert?.message == MoodError.userNotAuthenticated.message)
    try await harness.send(.tap("ok"))
    try await harness.send(.close)
    try await harness.send(.tap("exit"))
    #expect(harness.wasCancelled)
    #expect(harness.flow == nil)
  }

  @Test func moodSavedIsRecordedWithoutTheResponse() async throws {
    let world = World()
    let harness = Harness(world, trigger: .launch)
    try await harness.walk(to: "checkin.shaping")
    try await harness.send(.enter("response", "secret words"))
    try await harness.walk(to: "checkin.acting")
    try await harness.send(.tap("complete"))
    let events = world.analytics.events.filter { $0.event == "mood_saved" }
    #expect(events.count == 1)
    let event = try #require(events.first)
    #expect(event.flow == "checkin")
    #expect(event.variant == "full")
    #expect(event.user == "alice")
    #expect(
      event.fields == [
        "score": .number(5), "valence": .number(world.entries()[0].valence), "kind": .string("dailyMood"),
        "trigger": .string("launch"),
      ])
  }
}
