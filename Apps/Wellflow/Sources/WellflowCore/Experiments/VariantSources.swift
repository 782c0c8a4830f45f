import Experiments
import FlowKit
import Foundation
import WellflowExplorer
import WellflowScript

/// What `--experiments FILE` and `--growthbook FILE` add to a command that names flows:
/// the variants a file declares (a file may declare only `variants:`) and the payload
/// whose `wellflow.<flow>` features choose variants.
@MainActor
public struct VariantSources {
  public var registry: FlowRegistry
  public var experimentFile: ExperimentFile?
  public var payload: GrowthBookPayload?

  /// Why the files cannot be used: one `file:line:column: message` line per problem,
  /// then a summary (`2 problems found in the experiment file`); or, when the app's
  /// features do not register, only that as the summary.
  public struct LoadError: Error, Sendable, CustomStringConvertible {
    public var problems: [String]
    public var summary: String
    public var lines: [String] { problems + [summary] }
    public var description: String { lines.joined(separator: "\n") }
  }

  /// Loads both files against the app's flows: the one loader of experiment files and
  /// payloads for every command (run, play, explore, graph, flows, preview).
  public static func load(experimentsPath: String?, growthBookPath: String?)
    -> Result<VariantSources, LoadError>
  {
    var registry: FlowRegistry
    do {
      registry = try WellflowApp.makeRegistry()
    } catch {
      return .failure(LoadError(problems: [], summary: "error: the app's features do not register: \(error)"))
    }
    var sources = VariantSources(registry: registry)
    func fail(_ failure: ScriptLoadFailure, _ what: String) -> Result<VariantSources, LoadError> {
      let count = failure.problems.count
      return .failure(
        LoadError(
          problems: failure.problems.map(\.description),
          summary: "\(count) problem\(count == 1 ? "" : "s") found in the \(what)"))
    }
    if let path = experimentsPath {
      switch ExperimentFile.load(path: path, registry: registry) {
      case .success(let file):
        sources.experimentFile = file
        registry = file.registry
        sources.registry = registry
      case .failure(let failure): return fail(failure, "experiment file")
      }
    }
    if let path = growthBookPath {
      switch GrowthBookPayload.load(path: path, registry: registry) {
      case .success(let payload): sources.payload = payload
      case .failure(let failure): return fail(failure, "GrowthBook payload")
      }
    }
    return .success(sources)
  }

  /// `load`, with problems written to `console`; nil then.
  public static func load(experimentsPath: String?, growthBookPath: String?, console: Console)
    -> VariantSources?
  {
    switch load(experimentsPath: experimentsPath, growthBookPath: growthBookPath) {
    case .success(let sources): return sources
    case .failure(let error):
      for line in error.lines { console.err(line) }
      return nil
    }
  }

  /// What assigns variants to flows started without one; nil when neither file gives any.
  public func assigner(forced: [String: String] = [:]) -> ExperimentAssigner? {
    ExperimentAssigner.ifAny(
      experiments: experimentFile?.experiments ?? [], forced: forced, payload: payload,
      targeting: registry.targetingAttributes)
  }

  public init(
    registry: FlowRegistry, experimentFile: ExperimentFile? = nil, payload: GrowthBookPayload? = nil
  ) {
    self.registry = registry
    self.experimentFile = experimentFile
    self.payload = payload
  }

  /// The variant a new `user` (no settings yet) is given for `flow` by the payload or the
  /// experiment file; nil for the flow's default.
  public func variant(for flow: String, user: String) -> String? {
    guard let assigner = assigner() else { return nil }
    let environment = HostEnvironment(
      userID: user, clock: ManualClock(now: FlowExplorer.startDate, timeZone: TimeZone(identifier: "UTC")!),
      keyValueStore: InMemoryKeyValueStore())
    return assigner.assignment(for: flow, environment: environment)?.variation
  }

  /// Lines for `wellflow flows`: each payload feature that chooses a flow's variant.
  public var featureLines: [String] {
    guard let payload, !payload.featureByFlow.isEmpty else { return [] }
    var lines = ["GrowthBook features (\(payload.path)):"]
    for (flow, key) in payload.featureByFlow.sorted(by: { $0.key < $1.key }) {
      let rules = payload.features[key]?.rules.count ?? 0
      lines.append("  \(key) → variant of \(flow) (\(rules) rule\(rules == 1 ? "" : "s"))")
    }
    return lines
  }
}
