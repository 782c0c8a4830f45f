import FlowKit
import FlowKitTesting
import Foundation
import MoodTracking
import MoodTrackingTesting
import Testing

@MainActor
@Suite("mood.log and mood.history flows")
struct MoodFlowTests {
  let clock = ManualClock(
    now: Date(timeIntervalSince1970: 1_772_478_000), timeZone: TimeZone(identifier: "Europe/Berlin")!)
  let repository: any MoodRepository
  let outbox = InMemoryOutbox()
  let health = InMemoryStateOfMindStore()
  let analytics = InMemoryAnalyticsSink()
  let host: FlowHost

  init() throws {
    let repository = InMemoryMoodRepository(outbox: outbox)
    self.repository = repository
    var registry = FlowRegistry()
    try registry.register(MoodTrackingFeature.self)
    var services = Services()
    services[MoodRepositoryKey.self] = repository
    services[StateOfMindStoreKey.self] = health
    services[OutboxKey.self] = outbox
    host = try FlowHost(
      registry: registry,
      environment: HostEnvironment(
        userID: "alice", clock: clock, keyValueStore: InMemoryKeyValueStore(), analytics: analytics,
        services: services),
      workMode: .deferred)
  }

  func number(_ query: String) async throws -> Double? {
    if case .number(let value) = try await host.query(query) { return value }
    return nil
  }

  @Test func logSavesADailyMoodLabelledByTheScoreAndCompletes() async throws {
    try host.present(FlowRequest(flow: "mood.log"))
    #expect(host.screen?.element("date")?.value == .text("2026-03-02"))
    try host.send(.set("score", 8))
    #expect(host.screen?.element("score")?.kind == .slider(range: 1...10, step: 1, caption: "Pleasant"))
    try host.send(.enter("notes", "  a calm walk  "))
    try host.send(.tap("save"))
    await host.settle()
    #expect(host.isIdle)
    #expect(host.latestEndings["mood.log"]?.outcome == .completed)
    let saved = try #require(try await repository.latest(userID: "alice"))
    #expect(saved.score == 8)
    #expect(saved.kind == .dailyMood)
    #expect(saved.labels == [.happy, .confident])
    #expect(saved.notes == "a calm walk")
    #expect(abs(saved.valence - 0.5556) < 0.0001)
    #expect(try await number("health.count") == 1)
    #expect(try await number("outbox.pending") == 1)
    let savedEvent = try #require(analytics.events.first { $0.event == "mood_saved" })
    #expect(savedEvent.flow == "mood.log")
    #expect(
      savedEvent.fields == [
        "score": .number(8), "valence": .number(saved.valence), "kind": .string("dailyMood"),
        "trigger": .string("manual"),
      ])
  }

  @Test func aFutureDayDisablesSaveAndNamesTheProblem() throws {
    try host.present(FlowRequest(flow: "mood.log"))
    try host.send(.enter("date", "2026-03-03"))
    #expect(host.screen?.element("save")?.isEnabled == false)
    #expect(host.screen?.message == "2026-03-03 is in the future; pick today or an earlier day")
    #expect(throws: HostError.self) { try host.send(.tap("save")) }
    try host.send(.enter("date", "yesterday"))
    #expect(host.screen?.message?.hasPrefix("date must be a day written YYYY-MM-DD") == true)
    try host.send(.enter("date", "2026-03-01"))
    #expect(host.screen?.element("save")?.isEnabled == true)
  }

  @Test func closingTheLogSavesNothing() async throws {
    try host.present(FlowRequest(flow: "mood.log"))
    try host.send(.set("score", 2))
    try host.send(.close)
    await host.settle()
    #expect(host.latestEndings["mood.log"]?.outcome == .cancelled)
    #expect(try await repository.count(userID: "alice") == 0)
  }

  @Test func historyShowsTheRangeStatisticsAndCloseCompletes() async throws {
    for (daysAgo, score) in [(0, 9), (1, 7), (20, 2)] {
      try host.present(FlowRequest(flow: "mood.log"))
      try host.send(.set("score", Double(score)))
      let day = clock.calendar.date(byAdding: .day, value: -daysAgo, to: clock.now)!
      try host.send(.enter("date", MoodDay(day, in: clock.calendar).description))
      try host.send(.tap("save"))
      await host.settle()
    }
    try host.present(FlowRequest(flow: "mood.history"))
    await host.settle()
    let screen = try #require(host.screen)
    #expect(screen.element("range")?.value == .text("30d"))
    #expect(screen.element("count")?.value == .number(3))
    #expect(screen.element("average")?.value == .number(6))
    #expect(screen.element("highest")?.value == .number(9))
    #expect(screen.element("lowest")?.value == .number(2))
    #expect(screen.element("latest")?.value == .number(9))
    #expect(screen.element("streak")?.value == .number(2))
    try host.send(.select("range", ["7d"]))
    await host.settle()
    #expect(host.screen?.element("count")?.value == .number(2))
    #expect(host.screen?.element("average")?.value == .number(8))
    try host.send(.close)
    #expect(host.latestEndings["mood.history"]?.outcome == .completed)
  }

  @Test func queriesAnswerZeroAndNoneWithoutEntries() async throws {
    #expect(try await host.query("mood.count") == .number(0))
    #expect(try await host.query("mood.streak") == .number(0))
    #expect(try await host.query("mood.latest.score") == QueryValue.none)
    #expect(try await host.query("mood.average.7d") == QueryValue.none)
    #expect(try await host.query("outbox.failed") == .number(0))
  }
}
