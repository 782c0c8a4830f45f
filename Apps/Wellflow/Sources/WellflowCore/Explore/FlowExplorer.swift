import FlowKit
import Foundation

/// A broken promise of the flow contract, with the shortest action sequence that shows it.
public struct ExploreViolation: Sendable, Equatable {
  public enum Kind: String, Sendable, Equatable, Codable {
    case endedTwice = "ended more than once"
    case notReleased = "coordinator not released"
    case refusedActionChangedState = "a refused action changed the flow"
    case mustBeRefused = "an action that must be refused was accepted"
    case alertButtonRefused = "an alert button was refused"
    case unexpectedError = "unexpected error"
    case hostProblem = "host problem"
    case undeclaredID = "undeclared id"
    case duplicateID = "duplicate id"
    case nondeterministic = "nondeterministic"
    case leftWithoutEnding = "left without an ending"
  }

  public var kind: Kind
  /// Where and what, in words a person can act on.
  public var message: String
  /// The actions from the flow's first screen that reproduce it, the last one included.
  public var steps: [UserAction]

  public init(kind: Kind, message: String, steps: [UserAction]) {
    self.kind = kind
    self.message = message
    self.steps = steps
  }
}

/// What `wellflow explore` found.
public struct Exploration: Sendable {
  public var flow: String
  public var variant: String
  public var depth: Int
  /// Action sequences run, each from a fresh app.
  public var sequences: Int
  /// Of those, the ones ending in an action that must be refused.
  public var refusalChecks: Int
  /// Distinct states (screen after settling, or the ending).
  public var states: Int
  /// Sequences whose last action ended the flow, by outcome.
  public var completed: Int
  public var cancelled: Int
  public var shortestCompletion: [UserAction]?
  public var shortestCancellation: [UserAction]?
  public var violations: [ExploreViolation]
  /// True when `maxSequences` stopped the exploration before the depth was covered.
  public var stoppedEarly: Bool
  public var graph: FlowGraph
}

public enum ExploreError: Error, CustomStringConvertible {
  case host(HostError)
  case registry(RegistryError)
  case appDidNotStart(String)
  case invalidDepth(Int)

  public var description: String {
    switch self {
    case .host(let error): error.description
    case .registry(let error): error.description
    case .appDidNotStart(let message): "the app could not start: \(message)"
    case .invalidDepth(let depth): "depth must be at least 1, got \(depth)"
    }
  }
}

/// Tries every action sequence a flow offers up to a depth, each replayed from a fresh
/// in-memory app (flows cannot be snapshotted), and checks the flow contract after
/// every step: refused actions change nothing, alert buttons answer and nothing else
/// does while an alert is up, the flow ends at most once and its coordinator is
/// released after it ended, ids are declared and unique. States are told apart by
/// their screen after settling, so each is expanded once, from its shortest sequence.
@MainActor
public final class FlowExplorer {
  public struct Options: Sendable {
    public var flow: String
    /// nil explores the flow's default variant.
    public var variant: String?
    public var depth: Int
    /// Stops after this many sequences (nil: no limit); the report says so.
    public var maxSequences: Int?
    /// How often a progress line is written while exploring.
    public var progressInterval: Duration

    public init(
      flow: String, variant: String? = nil, depth: Int = 6, maxSequences: Int? = nil,
      progressInterval: Duration = .seconds(3)
    ) {
      self.flow = flow
      self.variant = variant
      self.depth = depth
      self.maxSequences = maxSequences
      self.progressInterval = progressInterval
    }
  }

  /// Text typed into text fields; clipped to the field's limit.
  public static let sampleText = "a few words"
  /// An element id no screen shows.
  public static let missingElement = "explore.missing"
  /// Explorations start at the scripts' default time, in UTC.
  static let startDate = Date(timeIntervalSince1970: 1_767_603_600)

  public let options: Options
  private let registry: FlowRegistry
  private let progress: (String) -> Void
  private let slot = ProbeSlot()
  private var observed = FlowRegistry()
  private var definition: FlowDefinition!
  private var variant = ""

  private var sequences = 0
  private var refusalChecks = 0
  private var states: [String: Int] = [:]
  private var completed = 0
  private var cancelled = 0
  private var shortestCompletion: [UserAction]?
  private var shortestCancellation: [UserAction]?
  private var violations: [ExploreViolation] = []
  private var violationKeys: Set<String> = []
  private var graph = FlowGraph()
  private var lastProgress = ContinuousClock.now
  private var level = 0

  /// `registry` holds the flow and any flow it asks for next; tests pass their own.
  public init(registry: FlowRegistry, options: Options, progress: @escaping (String) -> Void = { _ in }) {
    self.registry = registry
    self.options = options
    self.progress = progress
  }

  public func run() async throws(ExploreError) -> Exploration {
    guard options.depth >= 1 else { throw .invalidDepth(options.depth) }
    guard let definition = registry.flow(options.flow) else {
      throw .host(.unknownFlow(options.flow, registered: registry.flows.map(\.id)))
    }
    let variant = options.variant ?? definition.defaultVariant
    guard definition.variants.contains(variant) else {
      throw .host(.unknownVariant(flow: definition.id, variant: variant, variants: definition.variants))
    }
    self.definition = definition
    self.variant = variant
    do {
      observed = try Self.observing(registry, flow: definition.id, slot: slot)
    } catch {
      throw .registry(error)
    }
    lastProgress = ContinuousClock.now

    let root = try await replay([])
    let first = root.observe()
    inspect(root, first, after: [])
    states[first.fingerprint] = 0
    graph.add(node: first.node)
    root.close()

    var frontier: [(path: [UserAction], fingerprint: String)] =
      first.ending == nil ? [([], first.fingerprint)] : []
    var stoppedEarly = false
    level = 0
    exploring: while level < options.depth, !frontier.isEmpty {
      var next: [(path: [UserAction], fingerprint: String)] = []
      for (path, fingerprint) in frontier {
        if let limit = options.maxSequences, sequences >= limit {
          stoppedEarly = true
          break exploring
        }
        try await expand(path, fingerprint: fingerprint, into: &next)
      }
      frontier = next
      level += 1
    }
    graph.finish()
    return Exploration(
      flow: definition.id, variant: variant, depth: options.depth, sequences: sequences,
      refusalChecks: refusalChecks, states: states.count, completed: completed, cancelled: cancelled,
      shortestCompletion: shortestCompletion, shortestCancellation: shortestCancellation,
      violations: violations, stoppedEarly: stoppedEarly, graph: graph)
  }

  /// Tries every action the state offers, and the ones it must refuse.
  private func expand(
    _ path: [UserAction], fingerprint: String, into next: inout [(path: [UserAction], fingerprint: String)]
  ) async throws(ExploreError) {
    var current: Replay? = try await replay(path)
    guard let state = current?.observe(), state.fingerprint == fingerprint, let screen = state.screen else {
      report(
        .nondeterministic, key: "replay",
        "the same actions led to a different state when replayed from a fresh app", path)
      current?.close()
      return
    }

    // Refused actions leave the flow as it was, so one replay serves them all.
    for (action, reason) in Self.refusableActions(on: screen) {
      guard let run = current else { break }
      sequences += 1
      refusalChecks += 1
      let outcome = await run.apply(action)
      let after = run.observe()
      let steps = path + [action]
      switch outcome {
      case .accepted:
        report(
          .mustBeRefused, key: "\(state.node) \(action.command)",
          "\(state.node): `\(action.command)` was accepted, but \(reason)", steps)
      case .failed(let error):
        report(.unexpectedError, key: "\(state.node) \(action.command)", "\(state.node): \(error)", steps)
      case .refused:
        break
      }
      if after.fingerprint != state.fingerprint || run.probe.endings.count > 0 {
        if case .refused(let error) = outcome {
          report(
            .refusedActionChangedState, key: "\(state.node) \(action.command)",
            "\(state.node): `\(action.command)` was refused (\(error)) but \(Self.change(from: state, to: after))",
            steps)
        }
        inspect(run, after, after: steps)
        run.close()
        current = nil
      }
      tick()
    }

    for action in Self.offeredActions(on: screen) {
      if let limit = options.maxSequences, sequences >= limit { break }
      let run: Replay
      if let reusable = current {
        run = reusable
      } else {
        run = try await replay(path)
      }
      current = nil
      sequences += 1
      let steps = path + [action]
      let outcome = await run.apply(action)
      let after = run.observe()
      switch outcome {
      case .accepted:
        inspect(run, after, after: steps)
        graph.add(edge: FlowGraph.Edge(from: state.node, action: action.command, to: after.node))
        switch after.ending {
        case .completed?:
          completed += 1
          if shortestCompletion == nil { shortestCompletion = steps }
        case .cancelled?:
          cancelled += 1
          if shortestCancellation == nil { shortestCancellation = steps }
        case nil: break
        }
        if states[after.fingerprint] == nil {
          states[after.fingerprint] = states.count
          if after.ending == nil, after.screen != nil { next.append((steps, after.fingerprint)) }
        }
        run.close()
      case .refused(let error):
        if screen.alert != nil {
          report(
            .alertButtonRefused, key: "\(state.node) \(action.command)",
            "\(state.node): alert button `\(action.command)` was refused: \(error)", steps)
        }
        if after.fingerprint != state.fingerprint || run.probe.endings.count > 0 {
          report(
            .refusedActionChangedState, key: "\(state.node) \(action.command)",
            "\(state.node): `\(action.command)` was refused (\(error)) but \(Self.change(from: state, to: after))",
            steps)
          inspect(run, after, after: steps)
          run.close()
        } else {
          current = run
        }
      case .failed(let error):
        report(.unexpectedError, key: "\(state.node) \(action.command)", "\(state.node): \(error)", steps)
        run.close()
      }
      tick()
    }
    current?.close()
  }

  /// The contract checks that hold after any step.
  private func inspect(_ run: Replay, _ state: Observation, after steps: [UserAction]) {
    for problem in run.host.takeProblems() {
      report(.hostProblem, key: problem.description, problem.description, steps)
    }
    let endings = run.probe.endings
    let flow = definition.id
    if endings.count > 1 {
      let outcomes = endings.map(\.outcome.rawValue).joined(separator: ", ")
      report(.endedTwice, key: "", "\(flow) ended \(endings.count) times (\(outcomes))", steps)
    }
    if let ending = endings.first, run.probe.coordinator != nil {
      report(
        .notReleased, key: ending.outcome.rawValue,
        "\(flow)'s coordinator (\(run.probe.typeName)) is still alive after the flow \(ending.outcome.rawValue)",
        steps)
    }
    if state.ending == nil, state.screen == nil {
      report(
        .leftWithoutEnding, key: "", "\(flow) is no longer presented but never reported an ending", steps)
    }
    if let screen = state.screen { check(screen, steps) }
  }

  /// Ids must be unique on a screen and declared by the flow, since scripts are
  /// checked against the declarations before they run.
  private func check(_ screen: Screen, _ steps: [UserAction]) {
    let ids = screen.elements.map(\.id)
    for id in Set(ids) where ids.filter({ $0 == id }).count > 1 {
      report(
        .duplicateID, key: "\(screen.id) \(id)", "\(screen.id) shows element '\(id)' more than once", steps)
    }
    guard let declaration = definition.screens.first(where: { $0.id == screen.id }) else {
      report(
        .undeclaredID, key: screen.id,
        "screen \(screen.id) is not declared by \(definition.id) (declared: \(definition.screens.map(\.id).joined(separator: ", ")))",
        steps)
      return
    }
    for id in ids where !declaration.elements.contains(id) {
      report(.undeclaredID, key: "\(screen.id) \(id)", "\(screen.id): element '\(id)' is not declared", steps)
    }
    guard let alert = screen.alert else { return }
    let buttons = alert.buttons.map(\.id)
    if Set(buttons).count != buttons.count {
      report(
        .duplicateID, key: alert.id,
        "alert \(alert.id) repeats a button id (\(buttons.joined(separator: ", ")))", steps)
    }
    guard let declared = declaration.alerts.first(where: { $0.id == alert.id }) else {
      report(.undeclaredID, key: alert.id, "\(screen.id): alert \(alert.id) is not declared", steps)
      return
    }
    for button in buttons where !declared.buttons.contains(button) {
      report(
        .undeclaredID, key: "\(alert.id) \(button)", "alert \(alert.id): button '\(button)' is not declared",
        steps)
    }
  }

  /// Keeps the first (so the shortest) sequence of each distinct problem.
  private func report(_ kind: ExploreViolation.Kind, key: String, _ message: String, _ steps: [UserAction]) {
    guard violationKeys.insert("\(kind.rawValue)|\(key)").inserted else { return }
    violations.append(ExploreViolation(kind: kind, message: message, steps: steps))
  }

  private func tick() {
    let now = ContinuousClock.now
    guard now - lastProgress >= options.progressInterval else { return }
    lastProgress = now
    progress(
      "explore \(definition.id): depth \(level + 1) of \(options.depth), \(sequences) sequences, "
        + "\(states.count) states, \(violations.count) violations")
  }

  /// A fresh in-memory app showing the flow, after `path`.
  private func replay(_ path: [UserAction]) async throws(ExploreError) -> Replay {
    let probe = FlowProbe()
    slot.current = probe
    defer { slot.current = nil }
    let session = AppSession(
      registry: observed, dataDirectory: URL(fileURLWithPath: "/dev/null"),
      clock: ManualClock(now: Self.startDate, timeZone: TimeZone(identifier: "UTC")!), userID: "user-1",
      analytics: DiscardingAnalyticsSink(), storage: .memory)
    let host: FlowHost
    do {
      host = try session.open()
    } catch {
      throw .appDidNotStart("\(error)")
    }
    do {
      try host.present(FlowRequest(flow: definition.id, variant: variant))
    } catch {
      throw .host(error)
    }
    await host.settle()
    let replay = Replay(session: session, host: host, probe: probe)
    for action in path { _ = await replay.apply(action) }
    return replay
  }

  /// What the screen offers: enabled buttons, each option of a single choice, none and
  /// each option of a multiple choice, sliders at min/mid/max, text short and empty,
  /// toggles both ways, back and close where available; under an alert, its buttons.
  public static func offeredActions(on screen: Screen) -> [UserAction] {
    if let alert = screen.alert { return alert.buttons.map { .tap($0.id) } }
    var actions: [UserAction] = []
    for element in screen.elements where element.isEnabled {
      switch element.kind {
      case .button:
        actions.append(.tap(element.id))
      case .choice(let options, let multiple):
        if multiple { actions.append(.select(element.id, [])) }
        actions += options.map { .select(element.id, [$0.id]) }
      case .text(let limit):
        actions.append(.enter(element.id, String(sampleText.prefix(limit))))
        actions.append(.enter(element.id, ""))
      case .slider(let range, let step, _):
        let middle =
          step > 0
          ? range.lowerBound + ((range.upperBound - range.lowerBound) / 2 / step).rounded(.down) * step
          : range.lowerBound
        var values: [Double] = []
        for value in [range.lowerBound, middle, range.upperBound] where !values.contains(value) {
          values.append(value)
        }
        actions += values.map { .set(element.id, $0) }
      case .toggle:
        actions += [.toggle(element.id, true), .toggle(element.id, false)]
      case .info:
        break
      }
    }
    if screen.canGoBack { actions.append(.back) }
    if screen.canClose { actions.append(.close) }
    return actions
  }

  /// Actions the screen must refuse, each with the reason: an element not on screen,
  /// disabled elements, back/close where unavailable, values out of bounds; under an
  /// alert, anything but its buttons.
  public static func refusableActions(on screen: Screen) -> [(UserAction, String)] {
    var actions: [(UserAction, String)] = [
      (.tap(missingElement), "no element '\(missingElement)' is on screen")
    ]
    if let alert = screen.alert {
      let under = "alert \(alert.id) is up"
      if let action = screen.elements.lazy.compactMap(naturalAction).first { actions.append((action, under)) }
      actions += [(.back, under), (.close, under)]
      return actions
    }
    for element in screen.elements where !element.isEnabled {
      if let action = naturalAction(for: element) { actions.append((action, "'\(element.id)' is disabled")) }
    }
    if !screen.canGoBack { actions.append((.back, "back is not available")) }
    if !screen.canClose { actions.append((.close, "close is not available")) }
    let enabled = screen.elements.filter(\.isEnabled)
    for element in enabled {
      if case .text(let limit) = element.kind {
        actions.append(
          (
            .enter(element.id, String(repeating: "x", count: limit + 1)),
            "'\(element.id)' takes \(limit) characters"
          ))
        break
      }
    }
    for element in enabled {
      if case .slider(let range, let step, _) = element.kind {
        actions.append(
          (.set(element.id, range.upperBound + max(step, 1)), "'\(element.id)' ends at its maximum"))
        break
      }
    }
    for element in enabled {
      if case .choice = element.kind {
        actions.append((.select(element.id, [missingElement]), "'\(element.id)' has no such option"))
        break
      }
    }
    return actions
  }

  /// The first thing a person would do with an element.
  static func naturalAction(for element: Element) -> UserAction? {
    switch element.kind {
    case .button: .tap(element.id)
    case .choice(let options, _): options.first.map { .select(element.id, [$0.id]) }
    case .text: .enter(element.id, "x")
    case .slider(let range, _, _): .set(element.id, range.lowerBound)
    case .toggle: .toggle(element.id, true)
    case .info: nil
    }
  }

  /// How a state differs from another, in a few words.
  static func change(from before: Observation, to after: Observation) -> String {
    if let ending = after.ending { return "the flow \(ending.rawValue)" }
    guard let old = before.screen, let new = after.screen else { return "the flow is gone" }
    if old.id != new.id { return "the screen became \(new.id)" }
    if old.alert?.id != new.alert?.id {
      return "alert \(old.alert?.id ?? "none") became \(new.alert?.id ?? "none")"
    }
    for element in new.elements {
      guard let previous = old.element(element.id) else { return "element '\(element.id)' appeared" }
      if previous.value != element.value {
        return "'\(element.id)' changed from \(previous.value) to \(element.value)"
      }
      if previous.isEnabled != element.isEnabled {
        return "'\(element.id)' became \(element.isEnabled ? "enabled" : "disabled")"
      }
    }
    return "the screen changed"
  }

  /// The same registry with the explored flow wrapped so its endings and its
  /// coordinator's lifetime can be observed.
  static func observing(_ registry: FlowRegistry, flow: String, slot: ProbeSlot) throws(RegistryError)
    -> FlowRegistry
  {
    var wrapped = FlowRegistry()
    for definition in registry.flows {
      var make = definition.make
      if definition.id == flow {
        let base = make
        make = { @MainActor context in
          let inner = base(context)
          guard let probe = slot.current, !probe.made else { return inner }
          return ObservedFlow(inner, probe: probe)
        }
      }
      try wrapped.register(
        FlowDefinition(
          id: definition.id, summary: definition.summary, variants: definition.variants,
          defaultVariant: definition.defaultVariant, screens: definition.screens,
          stepVariants: definition.stepVariants, variantSteps: definition.variantSteps, make: make))
    }
    for query in registry.queries { try wrapped.register(query) }
    for rule in registry.launchRules { try wrapped.register(rule) }
    return wrapped
  }
}

/// A state as the explorer tells states apart: the screen after settling, or the ending.
struct Observation {
  var fingerprint: String
  /// The graph node: the screen id, `screen + alert`, or the outcome.
  var node: String
  var screen: Screen?
  var ending: FlowEnding.Outcome?
}

/// One app, replayed along a path.
@MainActor
final class Replay {
  enum Outcome {
    case accepted
    case refused(ActionError)
    case failed(HostError)
  }

  let session: AppSession
  let host: FlowHost
  let probe: FlowProbe

  init(session: AppSession, host: FlowHost, probe: FlowProbe) {
    self.session = session
    self.host = host
    self.probe = probe
  }

  func apply(_ action: UserAction) async -> Outcome {
    let outcome: Outcome
    do {
      try host.send(action)
      outcome = .accepted
    } catch {
      if case .action(let refusal) = error { outcome = .refused(refusal) } else { outcome = .failed(error) }
    }
    await host.settle()
    return outcome
  }

  func observe() -> Observation {
    if let ending = probe.endings.first {
      return Observation(
        fingerprint: "ended \(ending.outcome.rawValue)", node: ending.outcome.rawValue, screen: nil,
        ending: ending.outcome)
    }
    guard let top = host.top, let wrapper = probe.wrapper, top.coordinator === wrapper,
      let screen = host.screen
    else {
      return Observation(fingerprint: "gone", node: "gone", screen: nil, ending: nil)
    }
    return Observation(
      fingerprint: Self.fingerprint(screen),
      node: screen.alert.map { "\(screen.id) + \($0.id)" } ?? screen.id,
      screen: screen, ending: nil)
  }

  /// Ends the app; a flow still running is cancelled as when the app quits.
  func close() { session.close() }

  /// Everything a screen shows, as one string.
  static func fingerprint(_ screen: Screen) -> String {
    let separator = "\u{1F}"
    var parts = [
      screen.id, screen.title, screen.message ?? "\u{0}", screen.progress?.description ?? "",
      "\(screen.canGoBack)\(screen.canClose)",
    ]
    for element in screen.elements {
      var kind: String
      switch element.kind {
      case .button: kind = "b"
      case .choice(let options, let multiple):
        kind = (multiple ? "m" : "c") + options.map { "\($0.id)=\($0.label)" }.joined(separator: "\u{1E}")
      case .text(let limit): kind = "t\(limit)"
      case .slider(let range, let step, let caption):
        kind = "s\(range.lowerBound)...\(range.upperBound)/\(step)/\(caption ?? "")"
      case .toggle: kind = "o"
      case .info: kind = "i"
      }
      parts.append(
        "\(element.id)\u{1E}\(element.label)\u{1E}\(kind)\u{1E}\(element.isEnabled)\u{1E}\(element.value)")
    }
    if let alert = screen.alert {
      parts.append(
        "alert \(alert.id)\u{1E}\(alert.title)\u{1E}\(alert.message)\u{1E}"
          + alert.buttons.map { "\($0.id)=\($0.label)" }.joined(separator: "\u{1E}"))
    }
    return parts.joined(separator: separator)
  }
}

/// What the explorer learns about one presented coordinator.
@MainActor
final class FlowProbe {
  var made = false
  weak var coordinator: (any PresentableFlow)?
  weak var wrapper: ObservedFlow?
  var typeName = ""
  var endings: [FlowEnding] = []
}

/// The probe of the replay being built, read by the wrapped factory.
@MainActor
final class ProbeSlot {
  var current: FlowProbe?
}

/// Forwards to the flow, counting every ending it reports (the host ignores all but
/// the first, so only here can a second one be seen).
@MainActor
final class ObservedFlow: PresentableFlow {
  private let inner: any PresentableFlow
  private let probe: FlowProbe

  init(_ inner: any PresentableFlow, probe: FlowProbe) {
    self.inner = inner
    self.probe = probe
    probe.made = true
    probe.coordinator = inner
    probe.typeName = String(describing: type(of: inner))
    probe.wrapper = self
  }

  var screen: Screen { inner.screen }
  var isRunning: Bool { inner.isRunning }
  func send(_ action: UserAction) throws(ActionError) { try inner.send(action) }
  func perform(_ action: UserAction) throws(ActionError) { try inner.perform(action) }
  func cancel(_ reason: CancelReason) { inner.cancel(reason) }

  func start(reportingTo report: @escaping @MainActor (FlowEnding) -> Void) {
    let probe = probe
    inner.start { ending in
      probe.endings.append(ending)
      report(ending)
    }
  }
}
