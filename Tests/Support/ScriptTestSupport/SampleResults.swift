import FlowKit
import YAMLTree

@testable import WellflowScript

/// A one-step run of `s.yaml` for user `user-<index>`, passed or failed at its launch:
/// what the report and memory tests feed to the outputs.
package func sampleResult(_ index: Int, failing: Bool = false) -> ScriptResult {
  let position = SourcePosition(file: "s.yaml", line: 3, column: 5)
  return ScriptResult(
    name: "journey", file: "s.yaml", user: "user-\(index)", tags: [],
    steps: [
      StepResult(
        position: position, summary: "launch", label: nil, status: failing ? .failed : .passed,
        screen: "none", message: failing ? "expect failed" : nil, depth: 0, durationSeconds: 0.001)
    ],
    failure: failing
      ? ScriptResult.Failure(
        position: position, message: "expect failed", currentScreen: "current screen: none")
      : nil,
    durationSeconds: 0.002)
}
