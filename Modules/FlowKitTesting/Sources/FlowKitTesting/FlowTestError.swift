import FlowKit

/// Why a test host or a flow driver stopped a test: thrown, so a `try` in a test
/// records it as a failure with this message.
public enum FlowTestError: Error, Equatable, CustomStringConvertible {
  /// A step string that does not read as an action.
  case invalidStep(String, reason: String)
  /// A step the flow refused or the host could not run, with the screen it was sent to.
  case stepFailed(step: String, screen: String?, message: String)
  /// Problems the host handed over after settling (a failing launch rule, a follow-up
  /// flow that is not registered).
  case hostProblems([String])
  /// Coordinators still alive after their flow ended (a retain cycle, a task holding them).
  case notReleased([String])
  /// The flow the driver started has already ended.
  case flowNotRunning(lastScreen: String?)
  /// An entry point did not present its flow.
  case nothingPresented(String)

  public var description: String {
    switch self {
    case .invalidStep(let step, let reason): "step `\(step)`: \(reason)"
    case .stepFailed(let step, let screen, let message):
      "step `\(step)` on \(screen ?? "no screen") failed: \(message)"
    case .hostProblems(let problems): "the host reported: " + problems.joined(separator: "; ")
    case .notReleased(let flows):
      "not released after their ending: " + flows.joined(separator: ", ")
        + " (a strong reference outlives the flow: a closure capturing self, a task, a delegate)"
    case .flowNotRunning(let screen): "the flow is not running (it ended on \(screen ?? "its first screen"))"
    case .nothingPresented(let what): "\(what) presented nothing"
    }
  }
}
