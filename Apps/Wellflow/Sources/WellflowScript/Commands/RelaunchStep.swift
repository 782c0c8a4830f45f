import FlowKit
import Foundation

/// `- relaunch`: quits and launches the app on the same data; with `{clearState: true}`
/// the app's local data is wiped first (a new install, same account).
struct RelaunchStep: ScriptCommand {
  static let name = "relaunch"
  static let takes = CommandValue.optional

  let clearState: Bool

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    // `{clearState: true}` (Maestro's word) relaunches as a fresh install signed in
    // to the same account: local data gone, the backend's rows kept.
    let argument = input.value
    guard !argument.value.isNull else { return (Self(clearState: false), "relaunch") }
    guard let entries = argument.entries else {
      loader.report(
        argument.position, "relaunch takes nothing or {clearState: true}, got \(argument.typeName)")
      return nil
    }
    loader.checkKeys(entries, allowed: ["clearState"], what: "relaunch")
    let clear =
      entries.first { $0.key == "clearState" }.flatMap { loader.bool($0.value, "clearState") } ?? false
    return (Self(clearState: clear), clear ? "relaunch {clearState: true}" : "relaunch")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    SchemaBuilder.anyOf([
      SchemaBuilder.type("null"), SchemaBuilder.mapping([("clearState", SchemaBuilder.type("boolean"))]),
    ])
  }

  var thinkTimes: ClosedRange<Double>? { 1...3 }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    running.session.close()
    if clearState {
      do {
        try running.session.clearLocalData()
      } catch {
        throw running.fail("relaunch could not clear the app's data: \(error)")
      }
    }
    let host = try await running.openHost()
    await host.launch()
    return .settle
  }
}
