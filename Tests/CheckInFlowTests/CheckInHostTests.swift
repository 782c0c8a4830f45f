import CheckInFlow
import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import Testing

@MainActor
struct CheckInHostTests {
  /// Sends an action and settles, as the runner does between steps; the test host
  /// throws any problem the host reports and any coordinator not released.
  private func send(_ host: TestHost, _ action: UserAction) async throws {
    try await host.send(action)
  }

  private func finishQuick(_ host: TestHost, with button: String = "complete") async throws {
    if host.screen?.id == "checkin.pet" { try await send(host, .tap("begin")) }
    while host.screen?.id != "checkin.acting" {
      switch host.screen?.id {
      case "checkin.naming": try await send(host, .select("emotion", ["calm"]))
      case "checkin.evaluating": try await send(host, .select("evaluation", ["accept"]))
      default: break
      }
      try await send(host, .tap("continue"))
    }
    try await send(host, .tap(button))
  }

  @Test func launchPresentsTheDailyCheckInOnceOnboardingIsDone() async throws {
    let world = World()
    let host = try world.host()
    try await host.launch()
    #expect(host.top?.flow == "checkin")
    #expect(host.top?.trigger == .launch)
    #expect(host.top?.variant == "full")
    #expect(host.screen?.id == "checkin.pet")
    try await finishQuick(host)
    #expect(host.isIdle, "with today's mood saved, the rules present nothing")
    #expect(world.entries().map(\.kind) == [.dailyMood])
    try await host.launch()
    #expect(host.isIdle, "a second launch the same day presents nothing")
    world.clock.advance(days: 1)
    try await host.launch()
    #expect(host.screen?.id == "checkin.sensing", "a new day, and the Pet is gone")
  }

  @Test func launchPresentsNothingBeforeOnboarding() async throws {
    let world = World(onboarded: false)
    let host = try world.host()
    try await host.launch()
    #expect(host.isIdle)
    #expect(host.takeProblems().isEmpty)
  }

  @Test func theRuleRanksBelowOnboarding() throws {
    let registry = try World().registry()
    let rule = try #require(registry.launchRules.first { $0.id == CheckInFeature.launchRuleID })
    #expect(rule.priority < 200)
    #expect(rule.request == FlowRequest(flow: "checkin", trigger: .launch))
  }

  @Test func aMomentaryEmotionDoesNotCountAsTheDailyMood() async throws {
    let world = World()
    let host = try world.host()
    try await host.present(FlowRequest(flow: "checkin", variant: "quick", trigger: .notification))
    try await finishQuick(host)
    #expect(world.entries().map(\.kind) == [.momentaryEmotion])
    try await host.launch()
    #expect(host.top?.flow == "checkin")
    #expect(host.top?.trigger == .launch)
  }

  @Test func aCancelledDailyCheckInWaitsForTheNextLaunch() async throws {
    let world = World()
    let host = try world.host()
    try await host.launch()
    try await send(host, .close)
    #expect(host.isIdle)
    #expect(host.latestEndings["checkin"]?.outcome == .cancelled)
    try await host.launch()
    #expect(host.screen?.id == "checkin.pet", "closing the Pet does not retire it")
  }

  @Test func aCheckInEndingWithJournalIsFollowedByTheJournal() async throws {
    let world = World()
    let host = try world.host()
    try await host.launch()
    try await finishQuick(host, with: "journal")
    #expect(host.latestEndings["checkin"]?.outcome == .completed)
    #expect(host.top?.flow == "journal")
    #expect(host.top?.trigger == .manual, "the person chose the journal")
    try await send(host, .close)
    #expect(host.isIdle, "after the journal the rules find today's mood and present nothing")
  }

  @Test func presentMoodCheckInCallsBackOnceWithTheData() async throws {
    let world = World()
    let host = try world.host()
    var calls: [(Bool, MoodCheckInData?)] = []
    try presentMoodCheckIn(from: host.host) { completed, data in calls.append((completed, data)) }
    weak let coordinator = host.top?.coordinator as? MoodCheckInCoordinator
    #expect(coordinator != nil)
    #expect(host.top?.trigger == .manual)
    try await finishQuick(host)
    #expect(calls.count == 1)
    #expect(calls.first?.0 == true)
    #expect(calls.first?.1?.kind == .momentaryEmotion)
    #expect(calls.first?.1?.entryID == world.entries().first?.id)
    #expect(coordinator == nil)
    #expect(host.isIdle)
  }

  @Test func presentMoodCheckInReportsACancelledCheckIn() async throws {
    let world = World()
    let host = try world.host()
    var calls: [(Bool, MoodCheckInData?)] = []
    try presentMoodCheckIn(from: host.host, variant: "quick", trigger: .notification) { completed, data in
      calls.append((completed, data))
    }
    #expect(host.top?.variant == "quick")
    weak let coordinator = host.top?.coordinator as? MoodCheckInCoordinator
    try await send(host, .close)
    try await send(host, .tap("exit"))
    #expect(calls.count == 1)
    #expect(calls.first?.0 == false)
    #expect(calls.first?.1 == nil)
    #expect(coordinator == nil)
    #expect(world.entries().isEmpty)
  }

  @Test func presentMoodCheckInReportsAnAppThatQuits() async throws {
    let host = try World().host()
    var calls: [Bool] = []
    try presentMoodCheckIn(from: host.host) { completed, _ in calls.append(completed) }
    host.terminate()
    #expect(calls == [false])
  }

  @Test func presentMoodCheckInThrowsWhenTheCheckInIsNotRegistered() throws {
    let host = try FlowHost(registry: FlowRegistry(), environment: World().environment)
    #expect(throws: HostError.self) {
      try presentMoodCheckIn(from: host) { _, _ in Issue.record("no check-in, no callback") }
    }
  }

  @Test func presentMoodCheckInCanBeAwaited() async throws {
    let world = World()
    let host = try world.host()
    let checkIn = try await host.begin { host in
      try await presentMoodCheckIn(from: host, variant: "quick", trigger: .notification)
    }
    #expect(host.top?.variant == "quick")
    #expect(host.top?.trigger == .notification)
    try await finishQuick(host)
    let value = try await checkIn.value
    let data = try #require(value)
    #expect(data.kind == .momentaryEmotion)
    #expect(data.trigger == .notification)
    #expect(data.entryID == world.entries().first?.id)
    #expect(host.isIdle)
  }

  @Test func anAwaitedCheckInAnswersNilWhenThePersonLeavesOrTheAppQuits() async throws {
    let world = World()
    let host = try world.host()
    let left = try await host.begin { host in try await presentMoodCheckIn(from: host, variant: "quick") }
    try await host.run("close", "tap exit")
    #expect(try await left.value == nil)
    let quit = try await host.begin { host in try await presentMoodCheckIn(from: host) }
    host.terminate()
    #expect(try await quit.value == nil)
    #expect(world.entries().isEmpty)
    try host.expectReleased()
  }

  @Test func anAwaitedCheckInThrowsWhenTheCheckInIsNotRegistered() async throws {
    let host = try FlowHost(registry: FlowRegistry(), environment: World().environment)
    await #expect(throws: HostError.unknownFlow("checkin", registered: [])) {
      try await presentMoodCheckIn(from: host)
    }
  }

  @Test func theQueriesAnswerThePetFlagAndTheCompletedCount() async throws {
    let world = World()
    let host = try world.host()
    #expect(try await host.query("checkin.petSeen") == .bool(false))
    #expect(try await host.query("checkin.count") == .number(0))
    try await host.present(FlowRequest(flow: "checkin"))
    try await send(host, .tap("begin"))
    #expect(try await host.query("checkin.petSeen") == .bool(true))
    try await send(host, .close)
    try await send(host, .tap("exit"))
    #expect(try await host.query("checkin.count") == .number(0), "a cancelled check-in does not count")
    try await host.present(FlowRequest(flow: "checkin", variant: "quick"))
    try await finishQuick(host)
    #expect(try await host.query("checkin.count") == .number(1))
  }

  @Test func theHostRecordsEveryScreenAndEndingTaggedWithVariantAndTrigger() async throws {
    let world = World()
    let host = try world.host()
    try await host.present(FlowRequest(flow: "checkin", variant: "quick", trigger: .notification))
    try await finishQuick(host)
    let events = world.analytics.events
    #expect(
      events.map(\.event) == [
        "flow_started", "screen_viewed", "action", "screen_viewed", "action", "action", "screen_viewed",
        "action", "mood_saved", "flow_completed",
      ])
    #expect(events.allSatisfy { $0.flow == "checkin" && $0.variant == "quick" })
    #expect(events.first?.fields["trigger"] == .string("notification"))
    #expect(events.first { $0.event == "mood_saved" }?.fields["trigger"] == .string("notification"))
    #expect(
      events.filter { $0.event == "screen_viewed" }.map(\.fields["screen"]) == [
        .string("checkin.sensing"), .string("checkin.naming"), .string("checkin.acting"),
      ])
  }
}
