import FlowKit

/// The design's one-line entry point: presents the check-in on `presenter` and calls
/// back once with whether it completed and, if so, what was saved.
///
///     try presentMoodCheckIn(from: host) { completed, data in … }
///
/// The host stays in charge: analytics, the follow-up journal and the presentation
/// stack work as for any other flow. A variant nil lets the host choose (experiments,
/// then the default). Throws when the host cannot present the check-in at all.
@MainActor
public func presentMoodCheckIn(
  from presenter: FlowHost, variant: String? = nil, trigger: FlowTrigger = .manual,
  completion: @escaping @MainActor (_ completed: Bool, _ data: MoodCheckInData?) -> Void
) throws(HostError) {
  try presenter.present(FlowRequest(flow: CheckInFeature.flowID, variant: variant, trigger: trigger)) {
    ending in
    let data = ending.output as? MoodCheckInData
    completion(ending.outcome == .completed && data != nil, data)
  }
}

/// The `await`-able form: presents the check-in and returns what was saved, or nil when
/// the person left it or the app quit with it on screen.
///
///     if let data = try await presentMoodCheckIn(from: host) { … }
///
/// Throws, presenting nothing, when the host cannot present the check-in.
@MainActor
public func presentMoodCheckIn(
  from presenter: FlowHost, variant: String? = nil, trigger: FlowTrigger = .manual
) async throws(HostError) -> MoodCheckInData? {
  let ending = try await presenter.presentAndWait(
    FlowRequest(flow: CheckInFeature.flowID, variant: variant, trigger: trigger))
  return ending.outcome == .completed ? ending.output as? MoodCheckInData : nil
}
