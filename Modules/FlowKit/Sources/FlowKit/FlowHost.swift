import Foundation

public enum HostError: Error, Equatable, CustomStringConvertible {
  case noFlowPresented(action: String)
  case unknownFlow(String, registered: [String])
  case unknownVariant(flow: String, variant: String, variants: [String])
  case unknownQuery(String)
  case action(ActionError)
  case queryFailed(query: String, message: String)
  case launchRuleFailed(rule: String, message: String)
  case followUpFailed(rule: String, message: String)

  public var description: String {
    switch self {
    case .noFlowPresented(let action): "no flow is presented, so there is nothing to \(action)"
    case .unknownFlow(let flow, let registered):
      "no flow named '\(flow)' is registered (registered: \(registered.joined(separator: ", ")))"
    case .unknownVariant(let flow, let variant, let variants):
      "flow '\(flow)' has no variant '\(variant)' (variants: \(variants.joined(separator: ", ")))"
    case .unknownQuery(let query): "no query named '\(query)' is registered"
    case .action(let error): error.description
    case .queryFailed(let query, let message): "query \(query) failed: \(message)"
    case .launchRuleFailed(let rule, let message): "launch rule \(rule) failed: \(message)"
    case .followUpFailed(let rule, let message): "follow-up rule \(rule) failed: \(message)"
    }
  }
}

/// What an observer of the host sees after a change: the topmost screen, the presented
/// flows (bottom first) and whether tracked work is still running.
public struct HostChange: Sendable, Equatable {
  public var screen: Screen?
  public var flows: [String]
  public var isWorking: Bool
}

/// Owns the registry, the environment and the presentation stack. It presents flows
/// by id from anywhere, applies launch rules, routes follow-up flows and records
/// analytics events (`flow_started`, `screen_viewed`, `action`, …).
@MainActor
public final class FlowHost {
  public struct Presented {
    public let serial: Int
    public let flow: String
    public let variant: String
    public let trigger: FlowTrigger
    public let coordinator: any PresentableFlow
    /// The rule that presented it, if one did.
    let ruleID: String?
    /// Presented by a rule, or as the follow-up of a flow a rule presented: when it
    /// ends, the rules are asked again.
    let fromLaunch: Bool
    /// Told of the ending, for callers that present with a completion.
    let onEnd: (@MainActor (FlowEnding) -> Void)?
  }

  public let registry: FlowRegistry
  public let environment: HostEnvironment
  public let work: WorkTracker
  /// Chooses a variant when a request names none (experiments); nil → the default.
  public var variantResolver: (@MainActor (FlowRequest, FlowDefinition) -> String?)?

  public private(set) var stack: [Presented] = []
  /// The latest ending of each flow, by flow id.
  public private(set) var latestEndings: [String: FlowEnding] = [:]
  private var cancelledRules: Set<String> = []
  private var pendingProblems: [HostError] = []
  private var nextSerial = 0
  private var isTerminating = false
  private var revision = 0
  private var cachedScreen: (serial: Int, generation: Int, screen: Screen)?

  /// `workMode` `.deferred` is for headless runners, which settle between steps.
  public init(
    registry: FlowRegistry, environment: HostEnvironment, workMode: WorkTracker.Mode = .concurrent
  ) throws(RegistryError) {
    try registry.validate()
    self.registry = registry
    self.environment = environment
    self.work = WorkTracker(mode: workMode)
    work.onFinish = { [weak self] in self?.publish() }
    for activation in registry.activations { activation.activate(self) }
  }

  /// Translates every screen before anyone sees it (the person's language); nil shows
  /// the flows' own text. Ids never change with the language.
  public var localizer: ScreenLocalizer? {
    didSet {
      revision &+= 1
      publish()
    }
  }

  private var observers: [Int: AsyncStream<HostChange>.Continuation] = [:]
  private var nextObserver = 0

  /// Every change of the screen, the presented flows or the tracked work, as it happens:
  /// a UI re-renders from these instead of polling. The stream starts with the current
  /// state; it keeps only the newest change when its reader falls behind.
  public func changes() -> AsyncStream<HostChange> {
    let (stream, continuation) = AsyncStream<HostChange>.makeStream(bufferingPolicy: .bufferingNewest(1))
    nextObserver += 1
    let id = nextObserver
    observers[id] = continuation
    continuation.onTermination = { [weak self] _ in
      Task { @MainActor in self?.observers[id] = nil }
    }
    continuation.yield(currentChange)
    return stream
  }

  private var currentChange: HostChange {
    HostChange(screen: screen, flows: stack.map(\.flow), isWorking: !work.isIdle)
  }

  private func publish() {
    guard !observers.isEmpty else { return }
    let change = currentChange
    for continuation in observers.values { continuation.yield(change) }
  }

  /// When the earliest timer a flow scheduled is due; nil with none.
  public var nextTimerDate: Date? { work.nextTimerDate }

  /// Moves an adjustable clock (a runner's) to `date`, firing every timer due on the way
  /// in order, each at its own time, and settling the work each starts; every screen is
  /// current afterwards. A clock that cannot be moved is left alone (an app's clock
  /// moves by itself: call `fireDueTimers()`).
  public func advanceClock(to date: Date) async {
    guard let clock = environment.clock as? any AdjustableClock else { return }
    while let timer = work.takeDueTimer(by: date) {
      if timer.date > clock.now { clock.set(timer.date) }
      work.run(timer.body)
      await work.settle()
    }
    if date > clock.now { clock.set(date) }
    revision &+= 1
    publish()
  }

  /// Fires the timers due by the clock's present time (an app calls this when its own
  /// scheduler wakes it).
  public func fireDueTimers() async {
    while let timer = work.takeDueTimer(by: environment.clock.now) {
      work.run(timer.body)
      await work.settle()
    }
    revision &+= 1
    publish()
  }

  public var top: Presented? { stack.last }
  /// The topmost flow's screen. Screens change only through actions, presentation,
  /// endings and tracked work, so the host builds each one once.
  public var screen: Screen? {
    refreshScreen()
    return cachedScreen?.screen
  }

  /// The topmost screen's id, without copying the screen.
  public var screenID: String? {
    refreshScreen()
    return cachedScreen?.screen.id
  }

  private func refreshScreen() {
    guard let top = stack.last else {
      cachedScreen = nil
      return
    }
    let generation = revision &+ work.finishedCount
    if let cached = cachedScreen, cached.serial == top.serial, cached.generation == generation { return }
    let screen = top.coordinator.screen
    cachedScreen = (top.serial, generation, localizer?.localize(screen) ?? screen)
  }

  public var isIdle: Bool { stack.isEmpty }

  /// Problems found outside a direct call (a follow-up flow that is not registered,
  /// a failing launch rule), handed over once.
  public func takeProblems() -> [HostError] {
    defer { pendingProblems = [] }
    return pendingProblems
  }

  /// Presents a flow on top of whatever is shown.
  public func present(_ request: FlowRequest) throws(HostError) {
    try present(request, ruleID: nil, fromLaunch: false)
    publish()
  }

  /// Presents a flow on top of whatever is shown and tells `onEnd` how it ended (a
  /// feature's one-line entry point, such as `presentMoodCheckIn`). `onEnd` runs once,
  /// after the host recorded the ending and before any follow-up flow is presented.
  public func present(_ request: FlowRequest, onEnd: @escaping @MainActor (FlowEnding) -> Void)
    throws(HostError)
  {
    try present(request, ruleID: nil, fromLaunch: false, onEnd: onEnd)
    publish()
  }

  /// Sends an action to the topmost flow.
  public func send(_ action: UserAction) throws(HostError) {
    guard let top = stack.last else { throw .noFlowPresented(action: action.description) }
    refreshScreen()
    guard let before = cachedScreen?.screen.id else { throw .noFlowPresented(action: action.description) }
    do {
      try cachedScreen?.screen.validate(action)
      var fields: [String: EventValue] = ["action": .string(action.name)]
      if let element = action.elementID { fields["element"] = .string(element) }
      record("action", top, fields)
      try top.coordinator.perform(action)
    } catch {
      revision &+= 1
      throw .action(error)
    }
    revision &+= 1
    if top.coordinator.isRunning, stack.last?.serial == top.serial, screenID != before {
      recordScreen(top)
    }
    publish()
  }

  /// Asks the launch rules afresh: a new launch forgets which rule flows were cancelled.
  public func launch() async {
    cancelledRules = []
    await applyLaunchRules()
    publish()
  }

  /// Waits until every piece of tracked work (and work it started) has finished.
  public func settle() async { await work.settle() }

  /// Ends every presented flow, as when the app quits; nothing follows them.
  public func terminate() {
    isTerminating = true
    for entry in stack.reversed() { entry.coordinator.cancel(.terminated) }
    stack = []
    work.cancelAllTimers()
    isTerminating = false
    publish()
  }

  public func query(_ id: String) async throws(HostError) -> QueryValue {
    guard let query = registry.query(id) else { throw .unknownQuery(id) }
    do {
      return try await query.resolve(environment)
    } catch {
      throw .queryFailed(query: id, message: "\(error)")
    }
  }

  /// Records an analytics event for a flow (features record domain events through this).
  public func record(_ event: String, flow: String?, variant: String?, _ fields: [String: EventValue] = [:]) {
    guard environment.analytics.isRecording else { return }
    environment.analytics.record(
      AnalyticsEvent(
        ts: environment.clock.now, user: environment.userID ?? "anonymous", event: event, flow: flow,
        variant: variant, fields: fields))
  }

  /// Every event of a presented flow carries its variant and trigger, so funnels can
  /// be cut by either.
  private func record(_ event: String, _ entry: Presented, _ fields: [String: EventValue] = [:]) {
    guard environment.analytics.isRecording else { return }
    var fields = fields
    fields["trigger"] = .string(entry.trigger.rawValue)
    record(event, flow: entry.flow, variant: entry.variant, fields)
  }

  private func recordScreen(_ entry: Presented) {
    guard environment.analytics.isRecording, let screenID else { return }
    record("screen_viewed", entry, ["screen": .string(screenID)])
  }

  private func present(
    _ request: FlowRequest, ruleID: String?, fromLaunch: Bool, onEnd: (@MainActor (FlowEnding) -> Void)? = nil
  ) throws(HostError) {
    guard let definition = registry.flow(request.flow) else {
      throw .unknownFlow(request.flow, registered: registry.flows.map(\.id))
    }
    let variant = request.variant ?? variantResolver?(request, definition) ?? definition.defaultVariant
    guard definition.variants.contains(variant) else {
      throw .unknownVariant(flow: definition.id, variant: variant, variants: definition.variants)
    }
    let coordinator = definition.make(
      FlowContext(request: request, variant: variant, environment: environment, work: work))
    nextSerial += 1
    let entry = Presented(
      serial: nextSerial, flow: definition.id, variant: variant, trigger: request.trigger,
      coordinator: coordinator, ruleID: ruleID, fromLaunch: fromLaunch, onEnd: onEnd)
    stack.append(entry)
    revision &+= 1
    record("flow_started", entry)
    let serial = entry.serial
    coordinator.start { [weak self] ending in self?.flowEnded(serial, ending) }
    if coordinator.isRunning, stack.last?.serial == serial { recordScreen(entry) }
  }

  private func flowEnded(_ serial: Int, _ ending: FlowEnding) {
    guard let index = stack.firstIndex(where: { $0.serial == serial }) else { return }
    let entry = stack.remove(at: index)
    revision &+= 1
    latestEndings[entry.flow] = ending
    switch ending.outcome {
    case .completed: record("flow_completed", entry)
    case .cancelled: record("flow_cancelled", entry, ["reason": .string((ending.reason ?? .user).rawValue)])
    }
    entry.onEnd?(ending)
    guard !isTerminating else { return }
    if ending.outcome == .cancelled, let rule = entry.ruleID { cancelledRules.insert(rule) }
    if let next = ending.next {
      do {
        try present(next, ruleID: nil, fromLaunch: entry.fromLaunch)
      } catch {
        pendingProblems.append(error)
      }
      return
    }
    let followUps = registry.followUpRules.filter { $0.after == entry.flow && $0.outcome == ending.outcome }
    if !followUps.isEmpty {
      // Rules may read storage: asked as tracked work, so a runner settles them.
      work.run { await self.applyFollowUps(followUps, after: ending, fromLaunch: entry.fromLaunch) }
      publish()
      return
    }
    uncover(fromLaunch: entry.fromLaunch)
  }

  private func applyFollowUps(_ rules: [FollowUpRule], after ending: FlowEnding, fromLaunch: Bool) async {
    for rule in rules {
      do {
        guard try await rule.applies(environment, ending) else { continue }
        try present(rule.request, ruleID: nil, fromLaunch: fromLaunch)
        publish()
        return
      } catch let error as HostError {
        pendingProblems.append(error)
      } catch {
        pendingProblems.append(.followUpFailed(rule: rule.id, message: "\(error)"))
      }
    }
    uncover(fromLaunch: fromLaunch)
  }

  /// After a flow ended with nothing to follow it: the flow under it is seen again, or
  /// the launch rules are asked once more.
  private func uncover(fromLaunch: Bool) {
    if let uncovered = stack.last {
      recordScreen(uncovered)
    } else if fromLaunch {
      work.run { await self.applyLaunchRules() }
    }
    publish()
  }

  private func applyLaunchRules() async {
    for rule in registry.launchRules where !cancelledRules.contains(rule.id) {
      guard stack.isEmpty else { return }
      do {
        guard try await rule.applies(environment), stack.isEmpty else { continue }
        try present(rule.request, ruleID: rule.id, fromLaunch: true)
        return
      } catch let error as HostError {
        pendingProblems.append(error)
      } catch {
        pendingProblems.append(.launchRuleFailed(rule: rule.id, message: "\(error)"))
      }
      return
    }
  }
}
