import FlowKit
import Foundation
import YAMLTree

/// `- open: NOTIFICATION`: the person opens the latest delivered, unopened notification
/// with this id.
struct OpenStep: ScriptCommand {
  static let name = "open"
  static let takes = CommandValue.required

  let notification: String

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    guard let id = loader.string(input.value, "open") else { return nil }
    guard loader.vocabulary.notifications.contains(id) else {
      loader.report(
        input.value.position, "unknown notification '\(clipped(id))'\(loader.notificationList(id))")
      return nil
    }
    return (Self(notification: id), "open \(id)")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    builder.ids("notification", builder.vocabulary.notifications, "A delivered notification to open.")
  }

  var thinkTimes: ClosedRange<Double>? { 1...3 }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    // Tapping a notification starts an app that is not running, without launch rules.
    let host = try await running.openHost()
    do {
      try await host.openNotification(notification)
    } catch {
      throw running.fail("open failed: \(error)")
    }
    return .settle
  }
}
