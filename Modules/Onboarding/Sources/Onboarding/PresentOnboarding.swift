import FlowKit

/// Presents the onboarding on `presenter` and calls back once with the chosen skill,
/// or nil when it did not complete (the app quit with it on screen).
///
///     try presentOnboarding(from: host) { skill in … }
///
/// The host stays in charge: analytics and the presentation stack work as for any other
/// flow. A variant nil lets the host choose (experiments, then the default). Throws
/// when the host cannot present the onboarding at all.
@MainActor
public func presentOnboarding(
  from presenter: FlowHost, variant: String? = nil, trigger: FlowTrigger = .manual,
  completion: @escaping @MainActor (_ skill: SkillLevel?) -> Void
) throws(HostError) {
  try presenter.present(FlowRequest(flow: OnboardingFeature.flowID, variant: variant, trigger: trigger)) {
    ending in
    completion(ending.outcome == .completed ? ending.output as? SkillLevel : nil)
  }
}

/// The `await`-able form: presents the onboarding and returns the chosen skill, or nil
/// when it did not complete.
///
///     let skill = try await presentOnboarding(from: host)
@MainActor
public func presentOnboarding(
  from presenter: FlowHost, variant: String? = nil, trigger: FlowTrigger = .manual
) async throws(HostError) -> SkillLevel? {
  let ending = try await presenter.presentAndWait(
    FlowRequest(flow: OnboardingFeature.flowID, variant: variant, trigger: trigger))
  return ending.outcome == .completed ? ending.output as? SkillLevel : nil
}
