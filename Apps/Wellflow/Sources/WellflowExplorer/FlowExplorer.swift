import FlowKit
import Foundation
import WellflowScript

/// Explores a flow breadth-first as a graph of states and checks the flow contract on
/// every transition: refused actions change nothing, alert buttons answer and nothing
/// else does while an alert is up, the flow ends at most once and its coordinator is
/// released after it ended, ids are declared and unique.
///
/// A state is what can be observed (`Observation.fingerprint`): the screen after
/// settling (id, texts, elements with their values, enabled flags and options, the
/// alert, progress, back and close), the time to the next pending timer, or the
/// ending. Each state is expanded once, from the shortest sequence that reaches it,
/// which is what reports print. Flows cannot be snapshotted, so each expansion replays
/// that sequence in a fresh in-memory app.
///
/// The options of a choice are tried in classes (see `expandOptions`), and the clock
/// is one more action when a flow scheduled a timer. After exploring, every declared
/// screen never reached and a flow that never completed are reported as problems.
@MainActor
public final class FlowExplorer {
  /// Deep enough for every registered flow to be explored whole: the full check-in
  /// completes in 9 actions, and exploring stops early once no new state is left.
  public nonisolated static let defaultDepth = 12

  public struct Options: Sendable {
    public var flow: String
    /// nil explores the flow's default variant.
    public var variant: String?
    public var depth: Int
    /// Stops after this many sequences (nil: no limit); the report says so.
    public var maxSequences: Int?
    /// Stops once this many states were found (nil: no limit); the report says so.
    public var maxStates: Int?
    /// How often a progress line is written while exploring.
    public var progressInterval: Duration
    /// The language screens show in; nil is English.
    public var locale: String?

    public init(
      flow: String, variant: String? = nil, depth: Int = FlowExplorer.defaultDepth, maxSequences: Int? = nil,
      maxStates: Int? = nil, progressInterval: Duration = .seconds(3)
    ) {
      self.flow = flow
      self.variant = variant
      self.depth = depth
      self.maxSequences = maxSequences
      self.maxStates = maxStates
      self.progressInterval = progressInterval
    }

    public init(
      flow: String, variant: String? = nil, depth: Int = FlowExplorer.defaultDepth, locale: String?
    ) {
      self.init(flow: flow, variant: variant, depth: depth)
      self.locale = locale
    }
  }

  /// Text typed into text fields; clipped to the field's limit.
  public static let sampleText = "a few words"
  /// An element id no screen shows.
  public static let missingElement = "explore.missing"
  /// Explorations start at the scripts' default time, in UTC.
  package static let startDate = Date(timeIntervalSince1970: 1_767_603_600)

  public let options: Options
  /// Told of every screen state the exploration reaches (`wellflow flows` reads the
  /// elements' kinds, options and ranges off them).
  package var onScreen: ((Screen) -> Void)?
  /// Asked between sequences: true ends the exploration early (a caller that has what it
  /// came for, such as `wellflow flows` once every declared element was seen).
  package var shouldStop: (() -> Bool)?
  private let registry: FlowRegistry
  private let progress: (String) -> Void
  private let slot = ProbeSlot()
  private var observed = FlowRegistry()
  private var definition: FlowDefinition!
  private var variant = ""

  private var sequences = 0
  private var refusalChecks = 0
  /// Every state found, by fingerprint.
  private var states: Set<String> = []
  private var reachedScreens: Set<String> = []
  private var shownTexts: Set<String> = []
  private var edges = 0
  private var completed = 0
  private var cancelled = 0
  private var shortestCompletion: [ExploreStep]?
  private var shortestCancellation: [ExploreStep]?
  private var violations: [ExploreViolation] = []
  private var violationKeys: Set<String> = []
  private var graph = FlowGraph()
  private var lastProgress = ContinuousClock.now
  private var level = 0
  private var limit: String?

  /// A state waiting to be expanded: its shortest sequence and what it showed.
  private struct Pending {
    var path: [ExploreStep]
    var fingerprint: String
  }

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
    states.insert(first.fingerprint)
    if let screen = first.screen { reachedScreens.insert(screen.id) }
    graph.add(node: first.node)
    root.close()

    var frontier = first.screen == nil ? [] : [Pending(path: [], fingerprint: first.fingerprint)]
    level = 0
    var deepest = 0
    exploring: while level < options.depth, !frontier.isEmpty {
      var next: [Pending] = []
      for pending in frontier {
        if limit != nil { break exploring }
        try await expand(pending, into: &next)
      }
      level += 1
      if !next.isEmpty { deepest = level }
      frontier = next
    }
    graph.finish()

    let stoppedEarly = limit != nil
    let exhausted = !stoppedEarly && frontier.isEmpty
    let declared = Self.expectedScreens(of: definition, variant: variant)
    let unreached = declared.filter { !reachedScreens.contains($0) }
    let scope =
      stoppedEarly
      ? "before the exploration stopped (\(limit!))"
      : exhausted
        ? "in any state it can reach (all \(states.count) explored)" : "within depth \(options.depth)"
    var problems = unreached.map { screen in
      ExploreViolation(
        kind: .unreachedScreen, message: "\(screen), declared by \(definition.id), was not reached \(scope)",
        steps: [])
    }
    if completed == 0 {
      problems.append(
        ExploreViolation(
          kind: .noCompletion, message: "\(definition.id) did not complete \(scope)", steps: []))
    }
    return Exploration(
      flow: definition.id, variant: variant, depth: options.depth, sequences: sequences,
      refusalChecks: refusalChecks, states: states.count, edges: edges, completed: completed,
      cancelled: cancelled, shortestCompletion: shortestCompletion,
      shortestCancellation: shortestCancellation,
      violations: violations, problems: problems, declaredScreens: declared, unreachedScreens: unreached,
      deepest: deepest, exhausted: exhausted, stoppedEarly: stoppedEarly, limit: limit, graph: graph,
      shownTexts: shownTexts)
  }

  /// The declared screens the variant is expected to show. A flow declares the screens
  /// of all its variants together; when the variant is a list of steps
  /// (`FlowDefinition.variantSteps`), the screens named after its steps
  /// (`onboarding.skill` for `skill`) are its own, the rest belong to other variants.
  static func expectedScreens(of definition: FlowDefinition, variant: String) -> [String] {
    let declared = definition.screens.map(\.id)
    guard let steps = definition.variantSteps[variant] else { return declared }
    let own = declared.filter { id in steps.contains { id == $0 || id.hasSuffix(".\($0)") } }
    return own.isEmpty ? declared : own
  }

  private var limitReached: Bool {
    if limit != nil { return true }
    if shouldStop?() == true {
      limit = "its caller had what it needed"
      return true
    }
    if let maximum = options.maxSequences, sequences >= maximum {
      limit = "the limit of \(maximum) sequences was reached"
      return true
    }
    return false
  }

  /// Tries every action the state offers (a class of options once), the clock when a
  /// timer is pending, and the actions it must refuse.
  private func expand(_ pending: Pending, into next: inout [Pending]) async throws(ExploreError) {
    let path = pending.path
    var pool: Replay? = try await replay(path)
    guard let state = pool?.observe(), state.fingerprint == pending.fingerprint, let screen = state.screen
    else {
      report(
        .nondeterministic, key: "replay",
        "the same actions led to a different state when replayed from a fresh app", path)
      pool?.close()
      return
    }

    // Refused actions leave the flow as it was, so one replay serves them all.
    for (action, reason) in Self.refusableActions(on: screen) {
      guard let run = pool else { break }
      sequences += 1
      refusalChecks += 1
      let outcome = await run.apply(.action(action))
      let after = run.observe()
      let steps = path + [.action(action)]
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
        pool = nil
      }
      tick()
    }

    var offers = Self.offers(on: screen)
    if let seconds = state.timer { offers.append(.step(.advance(seconds: seconds))) }
    for offer in offers {
      if limitReached { break }
      switch offer {
      case .step(let step):
        guard let (run, after) = try await attempt(step, at: state, path: path, pool: &pool) else { continue }
        run.close()
        arrive(from: state, label: step.command, path: path + [step], after: after, into: &next)
      case .options(let element, let actions):
        try await expandOptions(element, actions, at: state, path: path, pool: &pool, into: &next)
      }
    }
    pool?.close()
  }

  /// Option classes. Every option of `element` is tried once from the state, and the
  /// options are grouped into classes the flow's rules cannot tell apart: two options
  /// are alike when
  ///
  /// 1. the flow answers both the same way (accepted, or ended with the same outcome),
  /// 2. the screens they lead to are the same but for the chosen value and text a
  ///    person reads, which may be derived from it (title, message, labels, captions,
  ///    info values, the alert's title and message): `Replay.shape`, and
  /// 3. from those screens, every navigating action (each enabled button, alert
  ///    button, back and close) is answered the same way and leads to the same shape
  ///    again, so no option opens a path the others do not.
  ///
  /// Options that differ in anything else are classes of their own. One option per
  /// class (the first on screen) is explored further; every option tried is checked
  /// against the contract like any other step. Refused options are checked and
  /// change nothing, so they are not part of a class.
  private func expandOptions(
    _ element: String, _ actions: [UserAction], at state: Observation, path: [ExploreStep],
    pool: inout Replay?, into next: inout [Pending]
  ) async throws(ExploreError) {
    struct Member {
      var step: ExploreStep
      var after: Observation
      var run: Replay?
      var shape: String
    }
    var members: [Member] = []
    for action in actions {
      if limitReached { break }
      let step = ExploreStep.action(action)
      guard let (run, after) = try await attempt(step, at: state, path: path, pool: &pool) else { continue }
      members.append(
        Member(
          step: step, after: after, run: after.screen == nil ? nil : run,
          shape: after.shape(ignoring: element)))
      if after.screen == nil { run.close() }
    }

    var byShape: [String: Int] = [:]
    var groups: [[Int]] = []
    for (index, member) in members.enumerated() {
      if let group = byShape[member.shape] {
        groups[group].append(index)
      } else {
        byShape[member.shape] = groups.count
        groups.append([index])
      }
    }

    var classes: [[Int]] = []
    for group in groups {
      guard group.count > 1, let screen = members[group[0]].after.screen else {
        classes.append(group)
        continue
      }
      let navigation = Self.navigationActions(on: screen)
      var bySignature: [[String]: Int] = [:]
      var split: [[Int]] = []
      for index in group {
        var signature: [String] = []
        var run = members[index].run
        members[index].run = nil
        for action in navigation {
          if limitReached { break }
          let memberPath = path + [members[index].step]
          if let (next, after) = try await attempt(
            .action(action), at: members[index].after, path: memberPath, pool: &run)
          {
            signature.append(after.shape(ignoring: element))
            next.close()
          } else {
            signature.append("refused")
          }
        }
        run?.close()
        if let existing = bySignature[signature] {
          split[existing].append(index)
        } else {
          bySignature[signature] = split.count
          split.append([index])
        }
      }
      classes += split
    }
    for member in members { member.run?.close() }

    for group in classes.sorted(by: { $0[0] < $1[0] }) {
      let representative = members[group[0]]
      guard case .action(let action) = representative.step else { continue }
      let options = group.compactMap { index -> String? in
        if case .action(.select(_, let ids)) = members[index].step { ids.first } else { nil }
      }
      graph.add(
        from: state.node, element: element, representative: action, options: options,
        to: representative.after.node)
      arrive(
        from: state, label: nil, path: path + [representative.step], after: representative.after, into: &next)
    }
  }

  /// Takes one step from the state on a fresh replay (or the pooled one) and checks
  /// the contract. Returns the app and what it shows when the flow accepted the step;
  /// a refused step that changed nothing leaves the app in `pool` for the next one.
  private func attempt(
    _ step: ExploreStep, at state: Observation, path: [ExploreStep], pool: inout Replay?
  ) async throws(ExploreError) -> (Replay, Observation)? {
    let run: Replay
    if let pooled = pool {
      run = pooled
      pool = nil
    } else {
      run = try await replay(path)
      guard run.observe().fingerprint == state.fingerprint else {
        report(
          .nondeterministic, key: "replay",
          "the same actions led to a different state when replayed from a fresh app", path)
        run.close()
        return nil
      }
    }
    defer { tick() }
    sequences += 1
    let steps = path + [step]
    let outcome = await run.apply(step)
    let after = run.observe()
    let command = step.command
    switch outcome {
    case .accepted:
      inspect(run, after, after: steps)
      return (run, after)
    case .refused(let error):
      if state.screen?.alert != nil {
        report(
          .alertButtonRefused, key: "\(state.node) \(command)",
          "\(state.node): alert button `\(command)` was refused: \(error)", steps)
      }
      if after.fingerprint != state.fingerprint || run.probe.endings.count > 0 {
        report(
          .refusedActionChangedState, key: "\(state.node) \(command)",
          "\(state.node): `\(command)` was refused (\(error)) but \(Self.change(from: state, to: after))",
          steps)
        inspect(run, after, after: steps)
        run.close()
      } else {
        pool = run
      }
    case .failed(let error):
      report(.unexpectedError, key: "\(state.node) \(command)", "\(state.node): \(error)", steps)
      run.close()
    }
    return nil
  }

  /// Records an accepted transition; a state seen for the first time waits for the next level.
  /// `label` is the graph edge's; nil when the caller drew it.
  private func arrive(
    from state: Observation, label: String?, path: [ExploreStep], after: Observation,
    into next: inout [Pending]
  ) {
    edges += 1
    if let label { graph.add(edge: FlowGraph.Edge(from: state.node, action: label, to: after.node)) }
    switch after.ending {
    case .completed?:
      completed += 1
      if shortestCompletion == nil { shortestCompletion = path }
    case .cancelled?:
      cancelled += 1
      if shortestCancellation == nil { shortestCancellation = path }
    case nil: break
    }
    guard !states.contains(after.fingerprint) else { return }
    if let maximum = options.maxStates, states.count >= maximum {
      if limit == nil { limit = "the limit of \(maximum) states was reached" }
      return
    }
    states.insert(after.fingerprint)
    if let screen = after.screen {
      reachedScreens.insert(screen.id)
      next.append(Pending(path: path, fingerprint: after.fingerprint))
    }
  }

  /// The contract checks that hold after any step.
  private func inspect(_ run: Replay, _ state: Observation, after steps: [ExploreStep]) {
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
    if let screen = state.screen {
      check(screen, steps)
      onScreen?(screen)
      shownTexts.formUnion(screen.visibleText)
    }
  }

  /// Ids must be unique on a screen and declared by the flow, since scripts are
  /// checked against the declarations before they run.
  private func check(_ screen: Screen, _ steps: [ExploreStep]) {
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
    // Scripts' option values are refused before a run unless declared.
    for element in screen.elements {
      guard case .choice(let options, _) = element.kind, let declared = declaration.options[element.id] else {
        continue
      }
      for option in options.map(\.id) where !declared.contains(option) {
        report(
          .undeclaredID, key: "\(screen.id) \(element.id) \(option)",
          "\(screen.id): option '\(option)' of '\(element.id)' is not declared", steps)
      }
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
  private func report(_ kind: ExploreViolation.Kind, key: String, _ message: String, _ steps: [ExploreStep]) {
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

  /// A fresh app on a scratch database showing the flow, after `path`.
  private func replay(_ path: [ExploreStep]) async throws(ExploreError) -> Replay {
    let probe = FlowProbe()
    slot.current = probe
    defer { slot.current = nil }
    let session = AppSession(
      registry: observed, dataDirectory: URL(fileURLWithPath: "/dev/null"),
      clock: ManualClock(now: Self.startDate, timeZone: TimeZone(identifier: "UTC")!), userID: "user-1",
      analytics: DiscardingAnalyticsSink(), storage: .sqliteScratch, locale: options.locale)
    let host: FlowHost
    do {
      host = try session.open()
    } catch {
      throw .appDidNotStart("\(error)")
    }
    if let sampleData = definition.sampleData {
      do {
        try await sampleData(host.environment)
      } catch {
        throw .appDidNotStart("the flow's sample data: \(error)")
      }
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
}
