import FlowKit
import Foundation

/// `- run: FILE` or `{file, env}`: runs a sub-script's steps.
struct RunStep: ScriptCommand {
  static let name = "run"
  static let takes = CommandValue.required

  /// The sub-script's path.
  let file: String
  let steps: [Step]

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    guard let script = loader.subScript(input.value, directory: input.directory, variables: input.variables)
    else { return nil }
    return (Self(file: script.path, steps: script.steps), "run \(script.written)")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    let script = SchemaBuilder.object(type: "string", ("pattern", .string("\\.ya?ml$")))
    return SchemaBuilder.anyOf([
      script, SchemaBuilder.mapping([("file", script), ("env", builder.environment())], required: ["file"]),
    ])
  }

  var executedCount: Int { 1 &+ ScriptLoader.executedCount(steps) }

  var workload: Int { 1 + Step.workload(of: steps) }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    running.record()
    try await running.execute(steps)
    return .recorded
  }
}
