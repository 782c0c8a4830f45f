import FlowKit
import Foundation

/// `- if: {conditions}` with `then:` and `else:` steps.
struct IfStep: ScriptCommand {
  static let name = "if"
  static let takes = CommandValue.required
  static let branchKeys: [(key: String, required: Bool)] = [("then", true), ("else", false)]

  let conditions: [Condition]
  let thenSteps: [Step]
  let elseSteps: [Step]

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    let conditions = loader.conditions(input.value)
    guard let thenNode = input.branch("then") else {
      loader.report(input.position, "if needs `then:` with a list of steps")
      return nil
    }
    let thenSteps = loader.stepList(thenNode, directory: input.directory, variables: input.variables)
    var elseSteps: [Step] = []
    if let elseNode = input.branch("else") {
      elseSteps = loader.stepList(elseNode, directory: input.directory, variables: input.variables)
    }
    return (
      Self(conditions: conditions, thenSteps: thenSteps, elseSteps: elseSteps),
      "if \(loader.conditionSummary(input.value))"
    )
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON { builder.conditions() }

  var executedCount: Int {
    1 &+ max(ScriptLoader.executedCount(thenSteps), ScriptLoader.executedCount(elseSteps))
  }

  var workload: Int { 1 + Step.workload(of: thenSteps) + Step.workload(of: elseSteps) }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    var holds = true
    for condition in conditions where await running.runner.check(condition) != nil {
      holds = false
      break
    }
    running.record(holds ? "then" : (elseSteps.isEmpty ? "condition false, skipped" : "else"))
    try await running.execute(holds ? thenSteps : elseSteps)
    return .recorded
  }
}
