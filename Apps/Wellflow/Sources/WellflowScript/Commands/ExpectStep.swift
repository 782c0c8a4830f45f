import FlowKit
import Foundation

/// `- expect: {screen, alert, value, data, …}`: every condition must hold.
struct ExpectStep: ScriptCommand {
  static let name = "expect"
  static let takes = CommandValue.required

  let conditions: [Condition]

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    let conditions = loader.conditions(input.value)
    return (Self(conditions: conditions), "expect \(loader.conditionSummary(input.value))")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON { builder.conditions() }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    for condition in conditions {
      if let mismatch = await running.runner.check(condition) {
        throw running.fail("expect failed: \(mismatch)")
      }
    }
    return .settle
  }
}
