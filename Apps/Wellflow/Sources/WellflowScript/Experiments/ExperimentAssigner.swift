import Experiments
import FlowKit
import Foundation
import StrictJSON
import WellflowComposition

/// Chooses the variant of a flow started without one, from a GrowthBook payload's
/// `wellflow.<flow>` feature or the experiments on that flow, and records
/// `experiment_viewed` for users hashed into an experiment.
@MainActor
public struct ExperimentAssigner {
  public let experiments: [FlowExperiment]
  /// Variation name by experiment key (a script's `experiments:`).
  public let forced: [String: String]
  /// From `--growthbook FILE`: its feature for a flow wins over the experiment file.
  public let payload: GrowthBookPayload?
  /// What the features let targeting read (the registry's `targetingAttributes`).
  public let targeting: [TargetingAttribute]

  public init(
    experiments: [FlowExperiment], forced: [String: String] = [:], payload: GrowthBookPayload? = nil,
    targeting: [TargetingAttribute]
  ) {
    self.experiments = experiments
    self.forced = forced
    self.payload = payload
    self.targeting = targeting
  }

  /// An assigner for these sources; nil when they give no flow a variant (no experiment
  /// and no payload), so flows start as they are.
  public static func ifAny(
    experiments: [FlowExperiment], forced: [String: String] = [:], payload: GrowthBookPayload?,
    targeting: [TargetingAttribute]
  ) -> ExperimentAssigner? {
    guard payload != nil || !experiments.isEmpty else { return nil }
    return ExperimentAssigner(
      experiments: experiments, forced: forced, payload: payload, targeting: targeting)
  }

  /// What targeting sees: `id` (the user id), `daysSinceFirstLaunch` (calendar days in
  /// the user's time zone) and what the features registered (`TargetingAttribute`:
  /// onboarding's `skill`, once chosen).
  public static func attributes(of environment: HostEnvironment, targeting: [TargetingAttribute])
    -> [String: JSONValue]
  {
    var attributes: [String: JSONValue] = [:]
    if let user = environment.userID { attributes["id"] = .string(user) }
    let store = environment.keyValueStore
    for attribute in targeting {
      switch attribute.read(environment) {
      case .string(let text)?: attributes[attribute.name] = .string(text)
      case .number(let number)?: attributes[attribute.name] = .number(number)
      case .bool(let flag)?: attributes[attribute.name] = .bool(flag)
      case nil: break
      }
    }
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
    if let payload, let feature = payload.featureByFlow[flow] {
      return featureAssignment(feature, flow: flow, payload: payload, environment: environment)
    }
    let candidates = experiments.filter { $0.flow == flow }
    guard !candidates.isEmpty else { return nil }
    let attributes = Self.attributes(of: environment, targeting: targeting)
    if let experiment = candidates.first(where: { forced[$0.key] != nil }) {
      return experiment.assign(attributes: attributes, forced: forced[experiment.key])
    }
    for experiment in candidates {
      let assignment = experiment.assign(attributes: attributes)
      if assignment.inExperiment { return assignment }
    }
    return nil
  }

  /// The variant the payload's feature gives this user, through GrowthBook's feature rules,
  /// with sticky bucketing in the user's store. Nil when the feature gives null (the flow's
  /// default). A force or rollout rule gives its variant without an exposure.
  func featureAssignment(
    _ feature: String, flow: String, payload: GrowthBookPayload, environment: HostEnvironment
  ) -> FlowAssignment? {
    let sticky = KeyValueStickyBucketStore(store: environment.keyValueStore)
    var context = ExperimentContext(
      attributes: Self.attributes(of: environment, targeting: targeting), savedGroups: payload.savedGroups,
      features: payload.features,
      contextualBandits: payload.contextualBandits,
      // An unreadable record counts as none: the user is bucketed afresh and it is rewritten.
      stickyBucketAssignmentDocs: (try? sticky.documents()) ?? [:])
    // A script's `experiments: {KEY: NAME}` forces the rule's variation, as for files.
    for rule in payload.features[feature]?.rules ?? [] {
      let key = rule.key ?? feature
      if let name = forced[key],
        let index = (rule.contextualVariations ?? rule.variations)?.firstIndex(of: .string(name))
      {
        context.forcedVariations[key] = index
      }
    }
    let result = GrowthBook.evalFeature(feature, in: &context)
    if !context.changedStickyBuckets.isEmpty, let documents = context.stickyBucketAssignmentDocs {
      try? sticky.save(context.changedStickyBuckets.compactMap { documents[$0] })
    }
    guard case .string(let variant) = result.value else { return nil }
    if let experiment = result.experiment, let hashed = result.experimentResult {
      return FlowAssignment(
        experiment: experiment.key, flow: flow, variation: variant, variationId: hashed.variationId,
        inExperiment: hashed.inExperiment, hashUsed: hashed.hashUsed)
    }
    return FlowAssignment(
      experiment: feature, flow: flow, variation: variant, variationId: 0, inExperiment: false,
      hashUsed: false)
  }

  /// Installs the assigner as the host's variant resolver. An exposure is recorded when
  /// hashing put the user in the experiment; forced variations (QA, scripts) are not
  /// exposures, as in GrowthBook, so they never skew a report.
  public func install(on host: FlowHost) {
    guard !experiments.isEmpty || payload != nil else { return }
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
