import Experiments
import FlowKit

/// The app's flows for a command that takes `--experiments FILE`: with the file's
/// declared variants added and its experiments, or its problems as
/// `file:line:column: message` lines.
public enum AppRegistry {
  public struct LoadError: Error, Sendable, CustomStringConvertible {
    public var lines: [String]
    public var description: String { lines.joined(separator: "\n") }
  }

  public static func load(experimentsPath: String?) -> Result<(FlowRegistry, [FlowExperiment]), LoadError> {
    let registry: FlowRegistry
    do {
      registry = try WellflowApp.makeRegistry()
    } catch {
      return .failure(LoadError(lines: ["error: the app's features do not register: \(error)"]))
    }
    guard let path = experimentsPath else { return .success((registry, [])) }
    switch ExperimentFile.load(path: path, registry: registry) {
    case .success(let file): return .success((file.registry, file.experiments))
    case .failure(let failure): return .failure(LoadError(lines: failure.problems.map(\.description)))
    }
  }
}
