import FlowKit
import Foundation

/// `- launch`: starts the app, which applies its launch rules.
struct LaunchStep: ScriptCommand {
  static let name = "launch"
  static let takes = CommandValue.none

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    (Self(), "launch")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON { SchemaBuilder.type("null") }

  var thinkTimes: ClosedRange<Double>? { 1...3 }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    let host = try await running.openHost()
    await host.launch()
    return .settle
  }
}
