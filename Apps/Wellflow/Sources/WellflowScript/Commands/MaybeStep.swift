import FlowKit
import Foundation

/// `- maybe: {p: 0.3, steps: […]}`: runs `steps` with probability `p`, drawn from the
/// run's seed and the user id.
struct MaybeStep: ScriptCommand {
  static let name = "maybe"
  static let takes = CommandValue.required

  let p: Double
  let steps: [Step]

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    let argument = input.value
    guard let entries = argument.entries else {
      loader.report(argument.position, "maybe takes {p: 0.3, steps: […]}, got \(argument.typeName)")
      return nil
    }
    loader.checkKeys(entries, allowed: ["p", "steps"], what: "maybe")
    var probability: Double?
    if let pNode = entries.first(where: { $0.key == "p" })?.value {
      if case .number(let number) = pNode.value, number.isFinite, (0...1).contains(number) {
        probability = number
      } else {
        let shown = if case .number = pNode.value { pNode.text } else { pNode.quoted }
        loader.report(pNode.position, "p must be a probability from 0 to 1, got \(shown)")
      }
    } else {
      loader.report(argument.position, "maybe needs `p` (the probability its steps run, 0 to 1)")
    }
    guard let body = entries.first(where: { $0.key == "steps" })?.value else {
      loader.report(argument.position, "maybe needs `steps`")
      return nil
    }
    let bodySteps = loader.stepList(body, directory: input.directory, variables: input.variables)
    guard let probability else { return nil }
    return (Self(p: probability, steps: bodySteps), "maybe (p \(formatNumber(probability)))")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    SchemaBuilder.mapping(
      [
        (
          "p",
          SchemaBuilder.anyOf([
            SchemaBuilder.object(type: "number", ("minimum", .number(0)), ("maximum", .number(1))),
            builder.variable(),
          ])
        ), ("steps", builder.steps()),
      ], required: ["p", "steps"])
  }

  var executedCount: Int { 1 &+ ScriptLoader.executedCount(steps) }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    let runner = running.runner
    runner.maybeDraws += 1
    let draw = ScriptRunner.draw(
      seed: runner.options.seed, user: running.session.userID, step: running.step.position,
      occurrence: runner.maybeDraws)
    let runs = draw < p
    running.record(runs ? "drawn, ran" : "not drawn, skipped")
    if runs { try await running.execute(steps) }
    return .recorded
  }
}
