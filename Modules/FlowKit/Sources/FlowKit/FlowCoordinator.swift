/// Why a flow was cancelled.
public enum CancelReason: String, Sendable, Equatable {
  /// The person left the flow (close, exit).
  case user
  /// The app quit with the flow on screen (`relaunch`).
  case terminated
}

/// How a coordinator ended, with its typed output.
public enum FlowResult<Output: Sendable>: Sendable {
  case completed(Output)
  case cancelled(CancelReason)
}

/// An output that asks the host to present another flow next (a check-in asking for
/// the journal). The flow does not know the other feature; it only names its id.
public protocol FlowFollowUp {
  var nextFlow: FlowRequest? { get }
}

/// A flow as the host drives it: its screen, its input, its one ending.
@MainActor
public protocol PresentableFlow: AnyObject {
  var screen: Screen { get }
  var isRunning: Bool { get }
  /// Checks the action against the screen, then handles it.
  func send(_ action: UserAction) throws(ActionError)
  /// Handles an action the caller already checked with `screen.validate`.
  func perform(_ action: UserAction) throws(ActionError)
  func start(reportingTo report: @escaping @MainActor (FlowEnding) -> Void)
  func cancel(_ reason: CancelReason)
}

/// The base of every feature coordinator.
///
/// It retains itself from `start` until it ends, so nothing outside has to hold it;
/// the completion runs exactly once; a second ending is ignored; after the ending the
/// coordinator is released. Subclasses project `screen` and handle validated actions.
@MainActor
open class FlowCoordinator<Output: Sendable>: PresentableFlow {
  public enum State: Sendable, Equatable { case ready, running, finished }

  public private(set) var state: State = .ready
  private var completion: (@MainActor (FlowResult<Output>) -> Void)?
  private var retainedSelf: FlowCoordinator<Output>?

  public init() {}

  public var isRunning: Bool { state == .running }

  /// Starts the flow. A coordinator starts once; later calls are ignored.
  public final func start(completion: @escaping @MainActor (FlowResult<Output>) -> Void) {
    guard state == .ready else { return }
    state = .running
    self.completion = completion
    retainedSelf = self
    didStart()
  }

  public final func start(reportingTo report: @escaping @MainActor (FlowEnding) -> Void) {
    start { result in report(FlowEnding(result)) }
  }

  /// Hook for work at start (loading data); called once, after the lifecycle began.
  open func didStart() {}

  /// The current screen. Every subclass overrides it.
  open var screen: Screen {
    preconditionFailure("\(type(of: self)) must override `screen`")
  }

  /// Handles an action that already fits `screen` (see `Screen.validate`).
  open func handle(_ action: UserAction) throws(ActionError) {}

  public final func send(_ action: UserAction) throws(ActionError) {
    try ensureRunning(action)
    try screen.validate(action)
    try handle(action)
  }

  public final func perform(_ action: UserAction) throws(ActionError) {
    try ensureRunning(action)
    try handle(action)
  }

  private func ensureRunning(_ action: UserAction) throws(ActionError) {
    guard state == .running else {
      throw ActionError(screen: screen.id, element: action.elementID, problem: .flowEnded)
    }
  }

  public final func complete(_ output: Output) { finish(.completed(output)) }

  public final func cancel(_ reason: CancelReason = .user) { finish(.cancelled(reason)) }

  private func finish(_ result: FlowResult<Output>) {
    guard state == .running else { return }
    state = .finished
    let completion = self.completion
    self.completion = nil
    retainedSelf = nil
    completion?(result)
  }
}

/// A coordinator's ending with the output erased, as the host records it.
public struct FlowEnding: Sendable {
  public enum Outcome: String, Sendable, Equatable { case completed, cancelled }

  public var outcome: Outcome
  public var output: (any Sendable)?
  public var reason: CancelReason?
  public var next: FlowRequest?

  public init<Output>(_ result: FlowResult<Output>) {
    switch result {
    case .completed(let output):
      outcome = .completed
      self.output = output
      next = (output as? any FlowFollowUp)?.nextFlow
    case .cancelled(let reason):
      outcome = .cancelled
      self.reason = reason
    }
  }
}
