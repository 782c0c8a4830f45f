import FlowKit
import Foundation
import WellflowComposition

/// A step being run: what its command may use of the runner.
@MainActor
struct RunningStep {
  let runner: ScriptRunner
  let step: Step
  /// Nesting under `run`, `repeat` and `if`.
  let depth: Int
  let started: ContinuousClock.Instant

  var session: AppSession { runner.session }
  /// The running app, nil when it is not running.
  var host: FlowHost? { runner.host }

  /// A failure at the step's position.
  func fail(_ message: String) -> ScriptRunner.StepFailure {
    ScriptRunner.StepFailure(position: step.position, message: message)
  }

  /// The running app, started if it is not.
  func openHost() async throws(ScriptRunner.StepFailure) -> FlowHost {
    try await runner.openHost(step)
  }

  /// Records the step as passed (for commands that complete with `.recorded`).
  func record(_ message: String? = nil) {
    runner.record(step, .passed, depth: depth, started: started, message: message)
  }

  /// Runs steps nested in this one.
  func execute(_ steps: [Step]) async throws(ScriptRunner.StepFailure) {
    try await runner.execute(steps, depth: depth + 1)
  }
}
