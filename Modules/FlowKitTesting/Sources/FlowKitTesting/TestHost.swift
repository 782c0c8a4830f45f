import FlowKit

/// A host for a feature's tests: the features composed over a `TestEnvironment` (every
/// port they declared must be provided, or the init throws `CompositionError` naming
/// the feature and the port), work that runs when the test settles, and a check after
/// every step that each coordinator whose flow ended was released.
///
///     let app = try TestHost([OnboardingFeature.self])
///     await app.launch()
///     try await app.run("tap continue", "tap continue", "select skill beginner", "tap continue")
///     #expect(app.screenID == "onboarding.finale")
@MainActor
public final class TestHost {
  public let host: FlowHost
  public let environment: TestEnvironment
  /// Whether `launch`, `present`, `send` and `run` throw `FlowTestError.notReleased`
  /// when a coordinator outlives its ending (on by default).
  public var checksRelease: Bool
  private let made: MadeFlows

  /// Composes `registry` over `environment`. Every flow's factory is wrapped to note the
  /// coordinators it makes (weakly; the coordinators themselves are unchanged).
  public init(
    registry: FlowRegistry, environment: TestEnvironment = TestEnvironment(),
    workMode: WorkTracker.Mode = .deferred, checksRelease: Bool = true
  ) throws(CompositionError) {
    let made = MadeFlows()
    let observed = registry.mapFlows { definition in
      let make = definition.make
      return definition.replacingMake { context in
        let coordinator = make(context)
        made.note(coordinator, flow: definition.id, variant: context.variant)
        return coordinator
      }
    }
    host = try FlowHost.compose(
      registry: observed, environment: environment.hostEnvironment, workMode: workMode)
    self.environment = environment
    self.checksRelease = checksRelease
    self.made = made
  }

  /// Registers `features` (then anything `register` adds: a variant, a stand-in for a
  /// flow another feature owns) and composes them over `environment`.
  public convenience init(
    _ features: [any FlowFeature.Type], environment: TestEnvironment = TestEnvironment(),
    workMode: WorkTracker.Mode = .deferred, checksRelease: Bool = true,
    register: (inout FlowRegistry) throws -> Void = { _ in }
  ) throws {
    var registry = FlowRegistry()
    for feature in features { try registry.register(feature) }
    try register(&registry)
    try self.init(
      registry: registry, environment: environment, workMode: workMode, checksRelease: checksRelease)
  }

  public var registry: FlowRegistry { host.registry }
  public var screen: Screen? { host.screen }
  public var screenID: String? { host.screenID }
  public var top: FlowHost.Presented? { host.top }
  /// The flow on top, by id.
  public var flow: String? { host.top?.flow }
  public var isIdle: Bool { host.isIdle }
  public var clock: ManualClock { environment.clock }
  public var store: InMemoryKeyValueStore { environment.store }
  public var analytics: InMemoryAnalyticsSink { environment.analytics }

  /// The latest ending of each flow, by flow id.
  public var latestEndings: [String: FlowEnding] { host.latestEndings }

  /// The latest ending of `flow`.
  public func ending(of flow: String) -> FlowEnding? { host.latestEndings[flow] }

  /// Problems the host found since the last step (steps already throw them).
  public func takeProblems() -> [HostError] { host.takeProblems() }

  /// Applies the launch rules, then settles and checks.
  public func launch() async throws(FlowTestError) {
    await host.launch()
    try await settleAndCheck()
  }

  /// Presents a flow, then settles and checks. Throws the host's error when it cannot.
  public func present(_ flow: String, variant: String? = nil, trigger: FlowTrigger = .manual) async throws {
    try await present(FlowRequest(flow: flow, variant: variant, trigger: trigger))
  }

  public func present(_ request: FlowRequest) async throws {
    try host.present(request)
    try await settleAndCheck()
  }

  /// Sends an action to the top flow, then settles and checks. Throws the host's error
  /// (`HostError.action(…)`) when the screen refuses it.
  public func send(_ action: UserAction) async throws {
    try host.send(action)
    try await settleAndCheck()
  }

  /// Sends steps in the script vocabulary (`tap continue`, `select skill beginner`,
  /// `set score 8`, `enter notes hi`, `toggle id true`, `back`, `close`); each argument
  /// may hold several lines. Stops at the first step that fails, naming it and its screen.
  public func run(_ steps: String...) async throws(FlowTestError) {
    try await run(steps)
  }

  public func run(_ steps: [String]) async throws(FlowTestError) {
    for text in steps {
      for (step, action) in try UserAction.steps(text) {
        let screenID = host.screenID
        do {
          try host.send(action)
        } catch {
          throw .stepFailed(step: step, screen: screenID, message: error.description)
        }
        try await settleAndCheck()
      }
    }
  }

  /// Answers a registered query.
  public func query(_ id: String) async throws(HostError) -> QueryValue { try await host.query(id) }

  /// Waits for the work flows started, without checks.
  public func settle() async { await host.settle() }

  /// Ends every flow, as when the app quits.
  public func terminate() { host.terminate() }

  /// Starts an `await`-able entry point (`presentMoodCheckIn(from:)`) in a task and
  /// returns once it presented its flow (or already finished: a host error surfaces when
  /// the test awaits the task's value), so the test can drive the flow, then await the
  /// value. Throws when the entry point neither presents nor finishes.
  public func begin<Value: Sendable>(
    _ entry: @escaping @MainActor (FlowHost) async throws -> Value
  ) async throws -> Task<Value, any Error> {
    let before = host.top?.serial
    let finished = Flag()
    let host = self.host
    let task = Task { @MainActor in
      defer { finished.isSet = true }
      return try await entry(host)
    }
    var turns = 0
    while host.top?.serial == before, !finished.isSet {
      turns += 1
      guard turns < 10_000 else {
        task.cancel()
        throw FlowTestError.nothingPresented("the entry point")
      }
      await Task.yield()
    }
    return task
  }

  /// Coordinators whose flow ended but which are still alive, as `flow (variant): Type`.
  public var unreleased: [String] { made.unreleased }

  /// The one-line release check: throws when any coordinator outlived its ending.
  public func expectReleased() throws(FlowTestError) {
    let unreleased = made.unreleased
    guard unreleased.isEmpty else { throw .notReleased(unreleased) }
  }

  private func settleAndCheck() async throws(FlowTestError) {
    await host.settle()
    let problems = host.takeProblems()
    guard problems.isEmpty else { throw .hostProblems(problems.map(\.description)) }
    if checksRelease { try expectReleased() }
  }
}

/// The coordinators a test host's factories made, held weakly.
@MainActor
private final class MadeFlows {
  private struct Made {
    let flow: String
    let variant: String
    let type: String
    weak var coordinator: (any PresentableFlow)?
  }

  private var made: [Made] = []

  func note(_ coordinator: any PresentableFlow, flow: String, variant: String) {
    made.removeAll { $0.coordinator == nil }
    made.append(
      Made(
        flow: flow, variant: variant, type: String(describing: type(of: coordinator)),
        coordinator: coordinator))
  }

  /// Made, started and ended, yet alive.
  var unreleased: [String] {
    made.compactMap { entry in
      guard let coordinator = entry.coordinator, !coordinator.isRunning else { return nil }
      return "\(entry.flow) (\(entry.variant)): \(entry.type)"
    }
  }
}

@MainActor
private final class Flag {
  var isSet = false
}
