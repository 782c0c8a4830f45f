import Foundation

/// Tracks async work that flows start (saves, loads) so that a runner can wait until
/// all of it finished before the next step: scripts never sleep and never race.
@MainActor
public final class WorkTracker {
  public enum Mode: Sendable {
    /// Each piece of work runs in its own task at once (an app's host).
    case concurrent
    /// Work waits in order until `settle()` runs it, inline (a headless runner): no
    /// task switches and the same order on every run.
    case deferred
  }

  /// A timer scheduled on the host's clock.
  public struct TimerID: Hashable, Sendable {
    fileprivate let value: Int
  }

  public let mode: Mode
  /// Told each time a piece of work finishes (the host publishes the change).
  var onFinish: (@MainActor () -> Void)?
  private var timers: [(id: TimerID, date: Date, body: @MainActor () async -> Void)] = []
  private var nextTimerID = 0
  private var inFlight = 0
  /// Counts finished pieces of work; state shown on screens may change with each.
  public private(set) var finishedCount = 0
  private var queue: [@MainActor () async -> Void] = []
  private var waiters: [CheckedContinuation<Void, Never>] = []

  public init(mode: Mode = .concurrent) {
    self.mode = mode
  }

  public var isIdle: Bool { inFlight == 0 && queue.isEmpty }

  /// Runs `body` on the main actor as tracked work.
  public func run(_ body: @escaping @MainActor () async -> Void) {
    switch mode {
    case .deferred:
      queue.append(body)
    case .concurrent:
      inFlight += 1
      Task { @MainActor in
        await body()
        self.finishedCount &+= 1
        self.inFlight -= 1
        self.onFinish?()
        if self.inFlight == 0 {
          let waiters = self.waiters
          self.waiters = []
          for waiter in waiters { waiter.resume() }
        }
      }
    }
  }

  /// Returns once no tracked work is left, including work started by work.
  public func settle() async {
    while !isIdle {
      if !queue.isEmpty {
        let body = queue.removeFirst()
        await body()
        finishedCount &+= 1
        onFinish?()
      } else {
        await withCheckedContinuation { waiters.append($0) }
      }
    }
  }

  /// Runs `body` as tracked work once the host's clock reaches `date` (a timer, a
  /// reminder, a day that rolls over). Timers fire in date order, then in the order they
  /// were scheduled; a headless runner fires them as it moves the clock
  /// (`FlowHost.advanceClock(to:)`), an app when its clock reaches them
  /// (`FlowHost.fireDueTimers()`). Capture flows weakly: a flow that ended is not kept.
  @discardableResult
  public func schedule(at date: Date, _ body: @escaping @MainActor () async -> Void) -> TimerID {
    nextTimerID += 1
    let id = TimerID(value: nextTimerID)
    timers.append((id, date, body))
    return id
  }

  public func cancelTimer(_ id: TimerID) {
    timers.removeAll { $0.id == id }
  }

  /// When the earliest timer is due; nil with none scheduled.
  public var nextTimerDate: Date? { timers.lazy.map(\.date).min() }

  /// Removes the earliest timer due at or before `date` (ties: the first scheduled).
  func takeDueTimer(by date: Date) -> (date: Date, body: @MainActor () async -> Void)? {
    var best: Int?
    for index in timers.indices where timers[index].date <= date {
      if best == nil || timers[index].date < timers[best!].date { best = index }
    }
    guard let best else { return nil }
    let timer = timers.remove(at: best)
    return (timer.date, timer.body)
  }

  /// Drops every timer (the app quit).
  func cancelAllTimers() { timers = [] }
}
