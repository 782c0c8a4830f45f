import FlowKit
import Foundation

/// `- start: FLOW` or `{flow, variant, trigger}`: presents a flow.
struct StartStep: ScriptCommand {
  static let name = "start"
  static let takes = CommandValue.required

  let request: FlowRequest

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    guard let request = loader.flowRequest(input.value) else { return nil }
    return (Self(request: request), "start \(request)")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON { builder.flowRequest() }

  var thinkTimes: ClosedRange<Double>? { 1...3 }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    let host = try await running.openHost()
    do {
      try host.present(request)
    } catch {
      throw running.fail("start failed: \(error)")
    }
    return .settle
  }
}
