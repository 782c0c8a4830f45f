import FlowKit
import Foundation
import Testing

@MainActor
@Suite("FlowHost")
struct FlowHostTests {
  /// Flows `a` and `b`, each with a rule "until done"; `a`'s rule asked first. `b` is
  /// registered first so that the order comes from the priority, not the registration.
  private func twoRules() throws -> HostFixture {
    try HostFixture { registry in
      try registry.register(flowDefinition("b"))
      try registry.register(flowDefinition("a"))
      try registry.register(untilDoneRule("b", priority: 10))
      try registry.register(untilDoneRule("a", priority: 20))
    }
  }

  @Test func launchPresentsTheFirstRuleThatApplies() async throws {
    let fixture = try twoRules()
    await fixture.host.launch()
    #expect(fixture.topFlow == "a")
    #expect(fixture.host.top?.trigger == .launch)
    #expect(fixture.host.stack.count == 1)

    try fixture.store.set(true, forKey: "a.done")
    fixture.host.terminate()
    await fixture.host.launch()
    #expect(fixture.topFlow == "b")
  }

  @Test func rulesAreAskedAgainWhenALaunchedFlowEnds() async throws {
    let fixture = try twoRules()
    await fixture.host.launch()
    #expect(fixture.topFlow == "a")
    try fixture.finishTopFlow()
    await fixture.host.settle()
    #expect(fixture.topFlow == "b")
    #expect(fixture.host.latestEndings["a"]?.outcome == .completed)
    try fixture.finishTopFlow()
    await fixture.host.settle()
    #expect(fixture.host.isIdle)
    #expect(fixture.host.takeProblems().isEmpty)
  }

  @Test func aManuallyPresentedFlowDoesNotAskTheRules() async throws {
    let fixture = try twoRules()
    try fixture.store.set(true, forKey: "a.done")
    try fixture.host.present(FlowRequest(flow: "a"))
    try fixture.finishTopFlow()
    await fixture.host.settle()
    #expect(fixture.host.isIdle, "rule b applies, but only flows started by launch ask the rules again")
  }

  @Test func aRuleWhoseFlowWasCancelledIsSkippedUntilTheNextLaunch() async throws {
    let fixture = try twoRules()
    await fixture.host.launch()
    #expect(fixture.topFlow == "a")
    try fixture.host.send(.close)
    await fixture.host.settle()
    #expect(fixture.host.latestEndings["a"]?.outcome == .cancelled)
    #expect(fixture.topFlow == "b", "a's rule still applies but its flow was cancelled")
    try fixture.finishTopFlow()
    await fixture.host.settle()
    #expect(fixture.host.isIdle)

    await fixture.host.launch()
    #expect(fixture.topFlow == "a", "a new launch forgets the cancellation")
  }

  @Test func aFollowUpFlowIsPresented() async throws {
    let fixture = try HostFixture { registry in
      try registry.register(flowDefinition("a", next: FlowRequest(flow: "c", variant: "second")))
      try registry.register(flowDefinition("c", variants: ["first", "second"], steps: ["c.only"]))
    }
    try fixture.host.present(FlowRequest(flow: "a"))
    try fixture.finishTopFlow()
    #expect(fixture.topFlow == "c")
    #expect(fixture.host.top?.variant == "second")
    #expect(fixture.host.screen?.id == "c.only")
    #expect(fixture.host.takeProblems().isEmpty)
  }

  @Test func anUnregisteredFollowUpBecomesAProblem() async throws {
    let fixture = try HostFixture { registry in
      try registry.register(flowDefinition("a", next: FlowRequest(flow: "journal")))
      try registry.register(flowDefinition("b"))
    }
    try fixture.host.present(FlowRequest(flow: "a"))
    try fixture.finishTopFlow()
    #expect(fixture.host.isIdle)
    let problems = fixture.host.takeProblems()
    #expect(problems == [.unknownFlow("journal", registered: ["a", "b"])])
    #expect(problems.map(\.description) == ["no flow named 'journal' is registered (registered: a, b)"])
    #expect(fixture.host.takeProblems().isEmpty, "problems are handed over once")
  }

  @Test func presentingOnTopAndUncovering() throws {
    let fixture = try HostFixture { registry in
      try registry.register(flowDefinition("a"))
      try registry.register(flowDefinition("b"))
    }
    try fixture.host.present(FlowRequest(flow: "a"))
    try fixture.host.send(.tap("next"))
    try fixture.host.present(FlowRequest(flow: "b"))
    #expect(fixture.host.stack.map(\.flow) == ["a", "b"])
    #expect(fixture.host.screen?.id == "b.one", "actions address the topmost flow")
    try fixture.host.send(.close)
    #expect(fixture.host.screen?.id == "a.two")
  }

  @Test func presentRejectsUnknownFlowsAndVariants() throws {
    let fixture = try HostFixture { registry in
      try registry.register(flowDefinition("a", variants: ["full", "quick"]))
    }
    #expect(throws: HostError.unknownFlow("x", registered: ["a"])) {
      try fixture.host.present(FlowRequest(flow: "x"))
    }
    #expect(throws: HostError.unknownVariant(flow: "a", variant: "mini", variants: ["full", "quick"])) {
      try fixture.host.present(FlowRequest(flow: "a", variant: "mini"))
    }
    #expect(
      HostError.unknownVariant(flow: "a", variant: "mini", variants: ["full", "quick"]).description
        == "flow 'a' has no variant 'mini' (variants: full, quick)")
    #expect(throws: HostError.noFlowPresented(action: "tap next")) { try fixture.host.send(.tap("next")) }
    #expect(fixture.host.isIdle)
  }

  @Test func terminateReleasesTheCoordinators() async throws {
    let fixture = try twoRules()
    weak var first: (any PresentableFlow)?
    weak var second: (any PresentableFlow)?
    await fixture.host.launch()
    first = fixture.host.top?.coordinator
    try fixture.host.present(FlowRequest(flow: "b"))
    second = fixture.host.top?.coordinator
    #expect(first != nil && second != nil)
    fixture.host.terminate()
    await fixture.host.settle()
    #expect(first == nil)
    #expect(second == nil)
    #expect(fixture.host.isIdle, "nothing follows flows ended by terminate")
    #expect(fixture.host.latestEndings["a"]?.reason == .terminated)
  }

  @Test func endedFlowsAreReleased() async throws {
    let fixture = try twoRules()
    await fixture.host.launch()
    weak let coordinator = fixture.host.top?.coordinator
    #expect(coordinator != nil)
    try fixture.finishTopFlow()
    await fixture.host.settle()
    #expect(coordinator == nil)
  }

  /// Every event of a flow carries its variant and trigger (the check-in's funnels are
  /// cut by both).
  @Test func analyticsEventsInOrderWithTheirFields() throws {
    let fixture = try HostFixture { registry in
      try registry.register(flowDefinition("a", variants: ["full", "quick"], steps: ["a.one", "a.two"]))
    }
    try fixture.host.present(FlowRequest(flow: "a", variant: "quick"))
    try fixture.host.send(.enter("note", "my secret diary"))
    try fixture.host.send(.tap("next"))
    try fixture.host.send(.back)
    fixture.clock.advance(by: 60)
    try fixture.host.send(.close)
    try fixture.host.present(FlowRequest(flow: "a", trigger: .notification))
    try fixture.finishTopFlow()

    let events = fixture.analytics.events
    let summary = events.map { event -> String in
      let fields = event.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(text($0.value))" }
      return ([event.event, event.flow ?? "-", event.variant ?? "-"] + fields).joined(separator: " ")
    }
    #expect(
      summary == [
        "flow_started a quick trigger=manual",
        "screen_viewed a quick screen=a.one trigger=manual",
        "action a quick action=enter element=note trigger=manual",
        "action a quick action=tap element=next trigger=manual",
        "screen_viewed a quick screen=a.two trigger=manual",
        "action a quick action=back trigger=manual",
        "screen_viewed a quick screen=a.one trigger=manual",
        "action a quick action=close trigger=manual",
        "flow_cancelled a quick reason=user trigger=manual",
        "flow_started a full trigger=notification",
        "screen_viewed a full screen=a.one trigger=notification",
        "action a full action=tap element=next trigger=notification",
        "screen_viewed a full screen=a.two trigger=notification",
        "action a full action=tap element=next trigger=notification",
        "flow_completed a full trigger=notification",
      ])
    #expect(events.allSatisfy { $0.user == "alice" })
    #expect(events.first?.ts == Date(timeIntervalSince1970: 1_767_603_600))
    #expect(events.last?.ts == Date(timeIntervalSince1970: 1_767_603_660), "events carry the clock's time")
  }

  @Test func enteredTextNeverAppearsInAnyEvent() throws {
    let fixture = try HostFixture { registry in try registry.register(flowDefinition("a")) }
    try fixture.host.present(FlowRequest(flow: "a"))
    try fixture.host.send(.enter("note", "slept badly"))
    try fixture.finishTopFlow()
    #expect(
      fixture.analytics.events.contains { $0.event == "action" && $0.fields["action"] == .string("enter") })
    for event in fixture.analytics.events {
      let texts =
        [event.event, event.flow ?? "", event.variant ?? "", event.user] + event.fields.values.map(text)
      #expect(!texts.contains { $0.contains("slept") }, "\(event.event) carries the entered text")
    }
  }

  @Test func aRefusedActionRecordsNoEvent() throws {
    let fixture = try HostFixture { registry in try registry.register(flowDefinition("a")) }
    try fixture.host.present(FlowRequest(flow: "a"))
    let before = fixture.analytics.events.count
    #expect(throws: HostError.self) { try fixture.host.send(.tap("missing")) }
    #expect(fixture.analytics.events.count == before)
  }

  @Test func queriesResolveThroughTheEnvironment() async throws {
    let fixture = try HostFixture { registry in
      try registry.register(
        QueryDefinition("a.done", type: .bool, summary: "") { env in
          .bool(try env.keyValueStore.bool(forKey: "a.done"))
        })
    }
    #expect(try await fixture.host.query("a.done") == .bool(false))
    try fixture.store.set(true, forKey: "a.done")
    #expect(try await fixture.host.query("a.done") == .bool(true))
    await #expect(throws: HostError.unknownQuery("nope")) { try await fixture.host.query("nope") }
  }

  private func text(_ value: EventValue) -> String {
    switch value {
    case .string(let text): text
    case .number(let number): formatNumber(number)
    case .bool(let bool): "\(bool)"
    }
  }
}

@MainActor
final class Log {
  var entries: [String] = []
}

@MainActor
@Suite("Work and time")
struct WorkAndTimeTests {
  @Test func settleWaitsForWorkStartedByWork() async {
    let tracker = WorkTracker()
    let log = Log()
    tracker.run {
      await Task.yield()
      tracker.run {
        for _ in 0..<5 { await Task.yield() }
        tracker.run {
          await Task.yield()
          log.entries.append("grandchild")
        }
        log.entries.append("child")
      }
      log.entries.append("parent")
    }
    #expect(!tracker.isIdle)
    await tracker.settle()
    #expect(log.entries == ["parent", "child", "grandchild"])
    #expect(tracker.isIdle)
  }

  @Test func settleReturnsAtOnceWithNoWork() async {
    let tracker = WorkTracker()
    await tracker.settle()
    #expect(tracker.isIdle)
  }

  @Test func advancingDaysKeepsTheLocalTimeAcrossDST() throws {
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = berlin
    let start = try #require(
      calendar.date(from: DateComponents(year: 2026, month: 3, day: 28, hour: 9, minute: 0)))
    let clock = ManualClock(now: start, timeZone: berlin)
    clock.advance(days: 1)
    let local = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: clock.now)
    #expect(local == DateComponents(year: 2026, month: 3, day: 29, hour: 9, minute: 0))
    #expect(clock.now.timeIntervalSince(start) == 23 * 3600, "the night of the change has 23 hours")
    #expect(clock.timeZone == berlin)
  }

  @Test func advancingByADurationIsExact() throws {
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = berlin
    let start = try #require(
      calendar.date(from: DateComponents(year: 2026, month: 3, day: 28, hour: 9, minute: 0)))
    let clock = ManualClock(now: start, timeZone: berlin)
    clock.advance(by: 24 * 3600)
    #expect(calendar.component(.hour, from: clock.now) == 10)
    #expect(clock.startOfDay(clock.now) == calendar.date(from: DateComponents(year: 2026, month: 3, day: 29)))
  }
}
