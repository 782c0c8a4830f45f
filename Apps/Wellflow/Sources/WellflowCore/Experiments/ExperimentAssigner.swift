import Experiments
import FlowKit
import Foundation
import Onboarding
import WellflowComposition

/// Chooses the variant of a flow started without one, from the experiments on that flow
/// (SPEC §6), and records `experiment_viewed` for users in the experiment.
@MainActor
public struct ExperimentAssigner {
  public let experiments: [FlowExperiment]
  /// Variation name by experiment key (a script's `experiments:`).
  public let forced: [String: String]

  public init(experiments: [FlowExperiment], forced: [String: String] = [:]) {
    self.experiments = experiments
    self.forced = forced
  }

  /// What targeting sees: `id` (the user id), `skill` (from onboarding, once chosen) and
  /// `daysSinceFirstLaunch` (calendar days in the user's time zone).
  public static func attributes(of environment: HostEnvironment) -> [String: JSONValue] {
    var attributes: [String: JSONValue] = [:]
    if let user = environment.userID { attributes["id"] = .string(user) }
    let store = environment.keyValueStore
    if let skill = try? store.string(forKey: OnboardingKeys.skill) { attributes["skill"] = .string(skill) }
    if let first = AppKeys.firstLaunchDate(in: store) {
      let clock = environment.clock
      let days = clock.calendar.dateComponents(
        [.day], from: clock.startOfDay(first), to: clock.startOfDay(clock.now)
      ).day
      if let days { attributes["daysSinceFirstLaunch"] = .number(Double(days)) }
    }
    return attributes
  }

  /// The assignment deciding `flow` for this user, nil when no experiment includes them.
  /// A forced experiment on the flow wins; otherwise the first experiment (in file order)
  /// that includes the user.
  public func assignment(for flow: String, environment: HostEnvironment) -> FlowAssignment? {
    let candidates = experiments.filter { $0.flow == flow }
    guard !candidates.isEmpty else { return nil }
    let attributes = Self.attributes(of: environment)
    if let experiment = candidates.first(where: { forced[$0.key] != nil }) {
      return experiment.assign(attributes: attributes, forced: forced[experiment.key])
    }
    for experiment in candidates {
      let assignment = experiment.assign(attributes: attributes)
      if assignment.inExperiment { return assignment }
    }
    return nil
  }

  /// Installs the assigner as the host's variant resolver. An exposure is recorded when
  /// hashing put the user in the experiment; forced variations (QA, scripts) are not
  /// exposures, as in GrowthBook, so they never skew a report.
  public func install(on host: FlowHost) {
    guard !experiments.isEmpty else { return }
    host.variantResolver = { [weak host] request, definition in
      guard let host, let assignment = self.assignment(for: definition.id, environment: host.environment)
      else { return nil }
      if assignment.inExperiment, assignment.hashUsed {
        host.record(
          "experiment_viewed", flow: definition.id, variant: assignment.variation,
          [
            "experiment": .string(assignment.experiment), "variation": .string(assignment.variation),
            "variation_id": .number(Double(assignment.variationId)),
          ])
      }
      return assignment.variation
    }
  }
}
