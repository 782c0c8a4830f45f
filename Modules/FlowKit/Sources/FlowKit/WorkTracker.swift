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

  public let mode: Mode
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
      } else {
        await withCheckedContinuation { waiters.append($0) }
      }
    }
  }
}
