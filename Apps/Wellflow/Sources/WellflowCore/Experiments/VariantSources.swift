import Experiments
import FlowKit
import Foundation

/// What `--experiments FILE` and `--growthbook FILE` add to a command that names flows:
/// the variants a file declares (a file may declare only `variants:`) and the payload
/// whose `wellflow.<flow>` features choose variants.
@MainActor
public struct VariantSources {
  public var registry: FlowRegistry
  public var experimentFile: ExperimentFile?
  public var payload: GrowthBookPayload?

  /// Loads both files against the app's flows. Problems go to `console` as
  /// `file:line:column: message` lines with a count; nil then.
  public static func load(experimentsPath: String?, growthBookPath: String?, console: Console)
    -> VariantSources?
  {
    var registry: FlowRegistry
    do {
      registry = try WellflowApp.makeRegistry()
    } catch {
      console.err("error: the app's features do not register: \(error)")
      return nil
    }
    var sources = VariantSources(registry: registry)
    func fail(_ failure: ScriptLoadFailure, _ what: String) -> VariantSources? {
      for problem in failure.problems { console.err(problem.description) }
      let count = failure.problems.count
      console.err("\(count) problem\(count == 1 ? "" : "s") found in the \(what)")
      return nil
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
    return sources
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
    guard payload != nil || !(experimentFile?.experiments.isEmpty ?? true) else { return nil }
    let assigner = ExperimentAssigner(experiments: experimentFile?.experiments ?? [], payload: payload)
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
