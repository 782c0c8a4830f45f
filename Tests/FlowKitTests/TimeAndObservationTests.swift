import FlowKit
import Foundation
import Testing

/// A countdown: `start` schedules a tick every 60 s on the host's clock; the screen
/// shows the ticks so far and the clock's minute, so it goes stale if the host caches it.
final class CountdownCoordinator: FlowCoordinator<Int> {
  let clock: any FlowClock
  let work: WorkTracker
  var ticks = 0
  var fired: [Date] = []
  var pending: WorkTracker.TimerID?

  init(clock: any FlowClock, work: WorkTracker) {
    self.clock = clock
    self.work = work
  }

  override var screen: Screen {
    let minute = clock.calendar.component(.minute, from: clock.now)
    return Screen(
      id: "countdown", title: "Countdown", message: "minute \(minute)",
      elements: [.info("ticks", "Ticks", value: .number(Double(ticks))), .button("start", "Start")],
      canClose: true)
  }

  func scheduleTick() {
    pending = work.schedule(at: clock.now.addingTimeInterval(60)) { [weak self] in
      guard let self, self.isRunning else { return }
      self.ticks += 1
      self.fired.append(self.clock.now)
      if self.ticks < 3 { self.scheduleTick() }
    }
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("start"): scheduleTick()
    case .close:
      if let pending { work.cancelTimer(pending) }
      cancel()
    default: break
    }
  }
}

@MainActor
@Suite("Time and observation")
struct TimeAndObservationTests {
  var coordinator: CountdownCoordinator?

  private func fixture() throws -> (HostFixture, Box) {
    let box = Box()
    let fixture = try HostFixture { registry in
      try registry.register(
        FlowDefinition(
          id: "countdown", summary: "ticks each minute", variants: ["default"],
          screens: [ScreenDeclaration("countdown", elements: ["ticks", "start"])],
          make: { context in
            let made = CountdownCoordinator(clock: context.environment.clock, work: context.work)
            box.coordinator = made
            return made
          }))
    }
    return (fixture, box)
  }

  final class Box {
    var coordinator: CountdownCoordinator?
  }

  @Test func advancingTheClockFiresTimersInOrderEachAtItsOwnTime() async throws {
    let (fixture, box) = try fixture()
    let start = fixture.clock.now
    try fixture.host.present(FlowRequest(flow: "countdown"))
    try fixture.host.send(.tap("start"))
    #expect(fixture.host.nextTimerDate == start.addingTimeInterval(60))
    await fixture.host.advanceClock(to: start.addingTimeInterval(150))
    // Two ticks were due within 150 s; each fired at its own minute, the third waits.
    #expect(box.coordinator?.fired == [start.addingTimeInterval(60), start.addingTimeInterval(120)])
    #expect(fixture.clock.now == start.addingTimeInterval(150))
    #expect(fixture.host.nextTimerDate == start.addingTimeInterval(180))
    await fixture.host.advanceClock(to: start.addingTimeInterval(3600))
    #expect(box.coordinator?.ticks == 3)
    #expect(fixture.host.nextTimerDate == nil)
  }

  @Test func screensAreCurrentAfterTheClockMoves() async throws {
    let (fixture, _) = try fixture()
    try fixture.host.present(FlowRequest(flow: "countdown"))
    #expect(fixture.host.screen?.message == "minute 0")
    #expect(fixture.host.screen?.element("ticks")?.value == .number(0))
    try fixture.host.send(.tap("start"))
    await fixture.host.advanceClock(to: fixture.clock.now.addingTimeInterval(5 * 60 + 30))
    #expect(fixture.host.screen?.message == "minute 5")
    #expect(fixture.host.screen?.element("ticks")?.value == .number(3))
  }

  @Test func cancelledTimersAndTimersOfAnAppThatQuitNeverFire() async throws {
    let (fixture, box) = try fixture()
    try fixture.host.present(FlowRequest(flow: "countdown"))
    try fixture.host.send(.tap("start"))
    try fixture.host.send(.close)
    #expect(fixture.host.nextTimerDate == nil)
    try fixture.host.present(FlowRequest(flow: "countdown"))
    try fixture.host.send(.tap("start"))
    fixture.host.terminate()
    #expect(fixture.host.nextTimerDate == nil)
    await fixture.host.advanceClock(to: fixture.clock.now.addingTimeInterval(3600))
    #expect(box.coordinator?.ticks == 0)
  }

  @Test func anAppClockFiresWhatIsDueWhenTheHostIsWoken() async throws {
    let (fixture, box) = try fixture()
    try fixture.host.present(FlowRequest(flow: "countdown"))
    try fixture.host.send(.tap("start"))
    await fixture.host.fireDueTimers()
    #expect(box.coordinator?.ticks == 0, "nothing is due yet")
    fixture.clock.advance(by: 61)
    await fixture.host.fireDueTimers()
    #expect(box.coordinator?.ticks == 1)
  }

  @Test func observersSeeEveryChangeWithoutPolling() async throws {
    let (fixture, _) = try fixture()
    var changes = fixture.host.changes().makeAsyncIterator()
    #expect(await changes.next()?.flows == [], "the stream starts with the current state")
    try fixture.host.present(FlowRequest(flow: "countdown"))
    let presented = await changes.next()
    #expect(presented?.flows == ["countdown"])
    #expect(presented?.screen?.id == "countdown")
    try fixture.host.send(.tap("start"))
    _ = await changes.next()
    await fixture.host.advanceClock(to: fixture.clock.now.addingTimeInterval(60))
    #expect(await changes.next()?.screen?.element("ticks")?.value == .number(1))
    try fixture.host.send(.close)
    #expect(await changes.next()?.flows == [])
  }

  @Test func finishedWorkIsPublished() async throws {
    let fixture = try HostFixture { registry in try registry.register(flowDefinition("a")) }
    var changes = fixture.host.changes().makeAsyncIterator()
    _ = await changes.next()
    fixture.host.work.run {}
    await fixture.host.settle()
    let change = await changes.next()
    #expect(change?.isWorking == false)
  }
}
