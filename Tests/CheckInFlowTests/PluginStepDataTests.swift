import CheckInFlow
import FlowKit
import Foundation
import MoodTracking
import Testing

/// A plugin's own data and ports, as another module would declare them.
enum SleepHours: CheckInDataKey {
  typealias Value = Int
}

/// Where the plugin keeps its part of a check-in, by mood entry.
final class SleepLog: @unchecked Sendable {
  private let lock = NSLock()
  private var saved: [UUID: Int] = [:]
  var failNext = false

  func save(hours: Int, entry: UUID) throws {
    try lock.withLock {
      if failNext {
        failNext = false
        throw SleepLogError()
      }
      saved[entry] = hours
    }
  }

  var entries: [UUID: Int] { lock.withLock { saved } }
}

struct SleepLogError: Error, CustomStringConvertible {
  var description: String { "the sleep log is full" }
}

enum SleepLogKey: ServiceKey { typealias Value = SleepLog }

/// What a wearable says about last night; a port like any other.
enum SleepSourceKey: ServiceKey { typealias Value = @Sendable () async -> Int }

/// A step from another module: hours slept, suggested from the sleep source, kept in
/// the plugin's own log once the mood is saved.
struct SleepStep: CheckInStep {
  let name = "sleep"
  let screenID = "checkin.sleep"
  let elementIDs = ["hours", "suggest", "continue"]

  func page(for draft: CheckInDraft) -> CheckInPage {
    CheckInPage(
      title: "How long did you sleep?",
      elements: [
        .slider(
          "hours", "Hours", range: 0...14, step: 1, value: Double(draft[SleepHours.self] ?? 7), caption: nil),
        .button("suggest", "Ask my watch"), .continueButton(),
      ])
  }

  func handle(_ action: UserAction, draft: inout CheckInDraft) -> CheckInStepOutcome {
    switch action {
    case .set("hours", let value):
      draft[SleepHours.self] = Int(value)
      return .stay
    case .tap("suggest"):
      return .perform(
        CheckInStepWork { services in
          let hours = await services[SleepSourceKey.self]()
          return { draft in draft[SleepHours.self] = hours }
        })
    case .tap("continue"): return .next
    default: return .stay
    }
  }

  func save(_ draft: CheckInDraft, entry: MoodEntry, services: Services) async throws {
    guard let hours = draft[SleepHours.self] else { return }
    try services[SleepLogKey.self].save(hours: hours, entry: entry.id)
  }
}

@MainActor
@Suite("Plugin step data")
struct PluginStepDataTests {
  let world = World()
  let log = SleepLog()

  private func host() throws -> FlowHost {
    var environment = world.environment
    var services = environment.services
    services[SleepLogKey.self] = log
    services[SleepSourceKey.self] = { 9 }
    environment = HostEnvironment(
      userID: environment.userID, clock: environment.clock, keyValueStore: environment.keyValueStore,
      analytics: environment.analytics, services: services)
    let variant = CheckInVariant(name: "rested", steps: [SensingStep(), SleepStep(), ActingStep()])
    return try FlowHost(
      registry: world.registry { registry in try CheckInFeature.registerVariant(variant, in: &registry) },
      environment: environment, workMode: .deferred)
  }

  @Test func aStepsTypedDataReachesTheOutputAndItsOwnStoreWithTheEntry() async throws {
    let host = try host()
    try host.present(FlowRequest(flow: "checkin", variant: "rested"))
    try host.send(.set("score", 8))
    try host.send(.tap("continue"))
    try host.send(.tap("suggest"))
    #expect(host.screen?.element("hours")?.value == .number(7), "the port answers as tracked work")
    await host.settle()
    #expect(host.screen?.element("hours")?.value == .number(9))
    try host.send(.set("hours", 6))
    try host.send(.tap("continue"))
    try host.send(.tap("complete"))
    await host.settle()
    let data = try #require(host.latestEndings["checkin"]?.output as? MoodCheckInData)
    #expect(data.contributions[SleepHours.self] == 6)
    #expect(log.entries == [data.entryID: 6])
    #expect(world.entries().map(\.id) == [data.entryID])
  }

  @Test func aFailedStepSaveShowsTheErrorAndARetrySavesTheMoodOnce() async throws {
    let host = try host()
    log.failNext = true
    try host.present(FlowRequest(flow: "checkin", variant: "rested", trigger: .notification))
    try host.send(.tap("continue"))
    try host.send(.set("hours", 5))
    try host.send(.tap("continue"))
    try host.send(.tap("complete"))
    await host.settle()
    #expect(host.screen?.alert?.id == "checkin.error")
    #expect(
      host.screen?.alert?.message
        == "Your mood is saved, but the sleep step could not keep its part: the sleep log is full")
    #expect(world.entries().count == 1)
    try host.send(.tap("ok"))
    try host.send(.tap("complete"))
    await host.settle()
    #expect(host.latestEndings["checkin"]?.outcome == .completed)
    #expect(world.entries().count == 1, "a moment's emotion is not saved twice")
    #expect(log.entries.values.sorted() == [5])
  }
}
