import FlowKit
import Foundation

/// A command that sends a person's action to the screen shown (`tap`, `select`, `back`, …).
protocol ActionCommand: ScriptCommand {
  var action: UserAction { get }
}

extension ActionCommand {
  var thinkTimes: ClosedRange<Double>? { 2...12 }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    guard let host = running.host else {
      throw running.fail("\(action.name) failed: the app is not running (add `- launch` first)")
    }
    do {
      try host.send(action)
    } catch {
      throw running.fail("\(action.name) failed: \(error)")
    }
    return .settle
  }
}
