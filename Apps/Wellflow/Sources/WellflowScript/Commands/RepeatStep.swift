import FlowKit
import Foundation

/// `- repeat: {times: N, steps: […]}`.
struct RepeatStep: ScriptCommand {
  static let name = "repeat"
  static let takes = CommandValue.required
  /// The most a `repeat` may say.
  static let maxTimes = 100_000

  let times: Int
  let steps: [Step]

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    let argument = input.value
    guard let entries = argument.entries else {
      loader.report(argument.position, "repeat takes {times: N, steps: […]}, got \(argument.typeName)")
      return nil
    }
    loader.checkKeys(entries, allowed: ["times", "steps"], what: "repeat")
    var times = 0
    if let timesNode = entries.first(where: { $0.key == "times" })?.value {
      if case .number(let number) = timesNode.value, let count = Int(exactly: number),
        (0...Self.maxTimes).contains(count)
      {
        times = count
      } else {
        loader.report(
          timesNode.position,
          "times must be a whole number from 0 to \(Self.maxTimes), got \(timesNode.quoted)")
      }
    } else {
      loader.report(argument.position, "repeat needs `times`")
    }
    guard let body = entries.first(where: { $0.key == "steps" })?.value else {
      loader.report(argument.position, "repeat needs `steps`")
      return nil
    }
    let bodySteps = loader.stepList(body, directory: input.directory, variables: input.variables)
    let executed = ScriptLoader.executedCount(bodySteps).multipliedReportingOverflow(by: times)
    if executed.overflow || executed.partialValue > ScriptLoader.maxExecutedSteps {
      loader.report(
        argument.position,
        "this repeat would take more than \(ScriptLoader.maxExecutedSteps) steps (\(times) times a body of \(ScriptLoader.executedCount(bodySteps)))"
      )
      return nil
    }
    return (Self(times: times, steps: bodySteps), "repeat \(times) times")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    SchemaBuilder.mapping(
      [("times", builder.integer(0...Self.maxTimes)), ("steps", builder.steps())],
      required: ["times", "steps"])
  }

  var executedCount: Int {
    let product = ScriptLoader.executedCount(steps).multipliedReportingOverflow(by: times)
    return product.overflow ? .max : 1 &+ product.partialValue
  }

  var workload: Int {
    let (product, overflow) = times.multipliedReportingOverflow(by: max(1, Step.workload(of: steps)))
    return overflow ? .max : product
  }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    running.record()
    for _ in 0..<times { try await running.execute(steps) }
    return .recorded
  }
}
