import FlowKit
import Foundation

/// `- network: offline` or `online`: the device's connection.
struct NetworkStep: ScriptCommand {
  static let name = "network"
  static let takes = CommandValue.required

  let state: NetworkState

  static func load(_ input: CommandInput, into loader: inout ScriptLoader) -> LoadedCommand? {
    let argument = input.value
    guard let text = argument.scalarText, let state = NetworkState(rawValue: text) else {
      loader.report(argument.position, "network takes offline or online, got \(argument.quoted)")
      return nil
    }
    return (Self(state: state), "network \(state.rawValue)")
  }

  static func schema(in builder: inout SchemaBuilder) -> SchemaJSON {
    builder.ids("network", [NetworkState.offline, .online].map(\.rawValue), "The network state.")
  }

  @MainActor func run(_ running: RunningStep) async throws(ScriptRunner.StepFailure) -> StepCompletion {
    running.session.connectivity.set(online: state == .online)
    return .settle
  }
}

public enum NetworkState: String, Sendable, Equatable {
  case offline
  case online
}
