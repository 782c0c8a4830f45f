import FlowKit
import Foundation
import Sync

/// `- sync`: tries every pending outbox row once, then pulls what other devices sent.
struct SyncStep: ScriptCommand {
  static let name = "sync"
  static let takes = CommandValue.none

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    (Self(), "sync")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON { SchemaBuilder.type("null") }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    _ = try await running.openHost()
    guard let sync = running.session.sync else { throw running.fail("sync failed: the app could not start") }
    let result: SyncService.Result
    do {
      result = try await sync.sync(userID: running.session.userID)
    } catch {
      throw running.fail("sync failed: \(error)")
    }
    await running.host?.settle()
    running.record(Self.describe(result))
    return .recorded
  }

  static func describe(_ result: SyncService.Result) -> String {
    let push = result.push
    var parts = ["sent \(push.synced)"]
    if push.failed > 0 { parts.append("refused \(push.failed)") }
    if push.retrying + push.untried > 0 { parts.append("waiting \(push.retrying + push.untried)") }
    if result.pulled > 0 { parts.append("pulled \(result.pulled)") }
    if result.pullSkippedCount > 0 { parts.append("skipped \(result.pullSkippedCount)") }
    switch push.stop {
    case .offline: parts.append("offline")
    case .backendUnavailable(let reason): parts.append(reason)
    case nil: break
    }
    // The push went through; what stopped the pull is said, not swallowed.
    if let error = result.pullError { parts.append("pull stopped: \(error)") }
    if let unfinished = result.pullUnfinished { parts.append(unfinished) }
    return parts.joined(separator: ", ")
  }
}
