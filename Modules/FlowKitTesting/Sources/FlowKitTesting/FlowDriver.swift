import FlowKit

/// Drives one coordinator the way a host does, without a host: starts it, records its
/// endings, settles the work it starts after each action, and holds it only weakly, so
/// a test can prove it is released after its ending.
///
///     let driver = FlowDriver { work in OnboardingCoordinator(store: store) }
///     try await driver.run("tap continue", "select skill beginner", "tap continue")
///     #expect(driver.output == .beginner)
///     try driver.expectReleased()
///
/// Subclass it to keep a feature's own helpers (walking to a step, its fakes) beside it.
@MainActor
open class FlowDriver<Output: Sendable, Flow: FlowCoordinator<Output>> {
  /// The id `screen` answers once the flow is gone.
  public static var endedScreenID: String { "ended" }

  public let work: WorkTracker
  /// Every ending the coordinator reported, in order (a correct flow reports one).
  public private(set) var endings: [FlowResult<Output>] = []
  /// The coordinator while anything but the driver keeps it alive (itself, while it runs).
  public private(set) weak var flow: Flow?
  private var lastScreenID: String?

  /// `make` builds the coordinator with the work tracker it should run async work on;
  /// `.deferred` work runs when the driver settles, after each action.
  public init(work: WorkTracker = WorkTracker(mode: .deferred), make: (WorkTracker) throws -> Flow) rethrows {
    self.work = work
    let coordinator = try make(work)
    flow = coordinator
    coordinator.start { [weak self] result in self?.endings.append(result) }
  }

  /// The coordinator, while it runs.
  public var running: Flow {
    get throws(FlowTestError) {
      guard let flow, flow.isRunning else { throw .flowNotRunning(lastScreen: lastScreenID) }
      return flow
    }
  }

  public var isRunning: Bool { flow?.isRunning == true }

  /// The current screen; once the coordinator is gone, a screen with id `ended`.
  public var screen: Screen {
    flow?.screen ?? Screen(id: Self.endedScreenID, title: "")
  }

  /// Checks the action against the screen, hands it to the flow and settles the work it
  /// started. Throws the flow's `ActionError` when the screen refuses it.
  public func send(_ action: UserAction) async throws {
    let flow = try running
    lastScreenID = flow.screen.id
    try flow.send(action)
    await work.settle()
  }

  /// Sends steps in the script vocabulary (`tap continue`, `select skill beginner`,
  /// `set score 8`, `enter notes hi`, `toggle id true`, `back`, `close`); each argument
  /// may hold several lines. Stops at the first step that fails, naming it.
  public func run(_ steps: String...) async throws(FlowTestError) {
    try await run(steps)
  }

  public func run(_ steps: [String]) async throws(FlowTestError) {
    for text in steps {
      for (step, action) in try UserAction.steps(text) {
        let screenID = flow?.screen.id
        do {
          try await send(action)
        } catch {
          throw .stepFailed(step: step, screen: screenID, message: "\(error)")
        }
      }
    }
  }

  /// The refusal an action meets, as its message; nil when the flow accepted it.
  public func refusal(_ action: UserAction) async -> String? {
    do {
      try await send(action)
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// Ends the flow from outside, as a host does when the app quits (`.terminated`).
  public func cancel(_ reason: CancelReason = .user) {
    flow?.cancel(reason)
  }

  /// The output of the one completed ending; nil before it, after a cancel, or when the
  /// flow (wrongly) ended more than once.
  public var output: Output? {
    guard endings.count == 1, case .completed(let output) = endings[0] else { return nil }
    return output
  }

  /// Ended exactly once, cancelled by the person.
  public var wasCancelled: Bool { cancelReason == .user }

  /// Why the flow was cancelled, when it ended exactly once by a cancel.
  public var cancelReason: CancelReason? {
    guard endings.count == 1, case .cancelled(let reason) = endings[0] else { return nil }
    return reason
  }

  /// Whether the coordinator is gone.
  public var isReleased: Bool { flow == nil }

  /// The one-line release check: throws unless the flow ended and its coordinator was
  /// released (it still runs, or something keeps it alive after its ending).
  public func expectReleased() throws(FlowTestError) {
    guard let flow else { return }
    let name = String(describing: type(of: flow))
    throw .notReleased([flow.isRunning ? "\(name) (still running on \(flow.screen.id))" : name])
  }
}
