/// Tracks async work that flows start (saves, loads) so that a runner can wait until
/// all of it finished before the next step: scripts never sleep and never race.
@MainActor
public final class WorkTracker {
  private var inFlight = 0
  private var waiters: [CheckedContinuation<Void, Never>] = []

  public init() {}

  public var isIdle: Bool { inFlight == 0 }

  /// Runs `body` on the main actor as tracked work.
  public func run(_ body: @escaping @MainActor () async -> Void) {
    inFlight += 1
    Task { @MainActor in
      await body()
      self.inFlight -= 1
      if self.inFlight == 0 {
        let waiters = self.waiters
        self.waiters = []
        for waiter in waiters { waiter.resume() }
      }
    }
  }

  /// Returns once no tracked work is left, including work started by work.
  public func settle() async {
    while inFlight > 0 {
      await withCheckedContinuation { waiters.append($0) }
    }
  }
}
