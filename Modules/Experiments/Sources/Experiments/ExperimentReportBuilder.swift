import Foundation

extension ExperimentReport {
  /// Gathers a report from events given one at a time, in file order, so a report over
  /// millions of events holds only what it counts: a compact state per exposed user (their
  /// variation, run, first exposure day, metrics reached and where each flow's first run
  /// got to), never the events.
  public struct Builder: Sendable {
    public let experiment: String
    public let metrics: [MetricDefinition]
    private let givenFlow: String?
    /// Variations in the order they are listed: those given, then others as first exposed.
    private var order: [String]
    private var orderIndex: [String: Int32] = [:]
    /// Without a given order: the variations in order of first exposure naming one, and the
    /// index (`variation_id`) each first carried, so the control comes first.
    private let ordersByVariationID: Bool
    private var named: [String] = []
    private var variationIDs: [String: Double] = [:]
    private var unnamedExposure = false

    private var experimentsSeen: Set<String> = []
    private var exposureFlows: [String: Int] = [:]
    private var exposures = 0
    private var simulated = false

    /// Names seen in events, each held once: flows and screens.
    private var flowIndex: [String: Int32] = [:]
    private var screenIndex: [String: Int32] = [:]
    private var screens: [String] = []

    private var userIndex: [String: Int32] = [:]
    private var users: [UserState] = []

    /// CUPED's covariate: per user, a field summed over events before their exposure.
    public let covariate: CovariateDefinition?
    private var usersWithCovariate = 0
    /// The covariate's sums of users not exposed yet (only those with such an event).
    private var preExposure: [String: Double] = [:]
    private let sequential: Bool
    /// Indices of the mean metrics, and whether any matching event (of any user) held the
    /// metric's field.
    private let meanMetrics: [Int]
    private var valueSeen: [Bool]

    /// - Parameters:
    ///   - flow: the experiment's flow; by default the flow most of its exposures name.
    ///   - variationOrder: variations to list first (the first is the control); others
    ///     follow in order of first exposure.
    ///   - ordersByVariationID: with no `variationOrder`, list variations by the index
    ///     exposures carry (`variation_id`), as `wellflow report` does without the file.
    public init(
      experiment: String, flow: String? = nil, variationOrder: [String] = [],
      metrics: [MetricDefinition] = [],
      ordersByVariationID: Bool = false, covariate: CovariateDefinition? = nil, sequential: Bool = false
    ) {
      self.experiment = experiment
      self.covariate = covariate
      self.sequential = sequential
      meanMetrics = metrics.indices.filter { metrics[$0].value != nil }
      valueSeen = Array(repeating: false, count: metrics.count)
      self.givenFlow = flow
      self.metrics = metrics
      self.ordersByVariationID = ordersByVariationID && variationOrder.isEmpty
      order = []
      for variation in variationOrder where orderIndex[variation] == nil {
        orderIndex[variation] = Int32(order.count)
        order.append(variation)
      }
    }

    /// What one exposed user's events came to.
    struct UserState: Sendable {
      var variation: Int32
      var severalVariations = false
      /// Runs are counted from the first exposure: an event stamped before the one before
      /// it starts a new run.
      var run: Int32 = 0
      var severalRuns = false
      var lastStamp: Date
      /// The UTC day of the first exposure, for `returned_next_day`.
      var exposureDay: Int
      /// Metrics reached, by index (the first 64; `moreConverted` for the rest).
      var converted: UInt64 = 0
      var moreConverted: Set<Int>? = nil
      /// The first run of each flow after exposure, by flow index (usually one).
      var runs: [(flow: Int32, run: CompactRun)] = []
      /// CUPED's covariate (0 without one).
      var covariate: Double = 0
      /// Mean metrics' sums, by metric index; empty until the first value.
      var values: [Double] = []
    }

    /// A user's first run of a flow after exposure: how it ended, how many screens it
    /// showed and the last (an index into `screens`).
    struct CompactRun: Sendable {
      enum State: UInt8, Sendable { case open, completed, cancelled, terminated, abandoned }
      var state: State = .open
      var screenCount: Int32 = 0
      var lastScreen: Int32 = -1
    }

    /// Users whose state is held: the exposed ones.
    var heldUsers: Int { users.count }

    /// Metrics whose field no matching event held (a misspelt field, or events that never
    /// carry it): what they report would be all zeros.
    public var metricsWithoutValues: [MetricDefinition] {
      meanMetrics.filter { !valueSeen[$0] }.map { metrics[$0] }
    }

    /// Adds the next event of the file; a mean metric's value that is not a number is
    /// left out.
    public mutating func add(_ event: ReportEvent) {
      try? addChecked(event)
    }

    /// Adds the next event of the file, refusing one whose mean metric's value is not a
    /// finite number (the event is not added).
    public mutating func addChecked(_ event: ReportEvent) throws(ReportError) {
      var values: [(Int, Double)] = []
      for index in meanMetrics where self.metrics[index].matches(event) {
        let field = self.metrics[index].value!
        guard let text = event.fields[field] else { continue }
        guard let number = Double(text), number.isFinite else {
          throw .nonNumericValue(metric: self.metrics[index].name, field: field, value: text)
        }
        valueSeen[index] = true
        values.append((index, number))
      }
      let isExposure = event.event == "experiment_viewed"
      if let covariate, event.event == covariate.event, userIndex[event.user] == nil,
        let text = event.fields[covariate.value]
      {
        guard let number = Double(text), number.isFinite else {
          throw .nonNumericCovariate(event: covariate.event, field: covariate.value, value: text)
        }
        preExposure[event.user, default: 0] += number
      }
      if isExposure, let name = event.fields["experiment"], !experimentsSeen.contains(name) {
        experimentsSeen.insert(name)
      }
      let exposure = isExposure && event.fields["experiment"] == experiment
      if exposure {
        expose(event)
        return
      }
      guard let index = userIndex[event.user] else { return }
      // Names interned first, so the user's state is the only thing the update changes.
      var flowNumber: Int32?
      if let flow = event.flow { flowNumber = Self.intern(flow, in: &flowIndex) }
      var screenNumber: Int32?
      if event.event == "screen_viewed", let screen = event.fields["screen"] {
        if let known = screenIndex[screen] {
          screenNumber = known
        } else {
          screenNumber = Int32(screens.count)
          screenIndex[screen] = screenNumber
          screens.append(screen)
        }
      }
      let metrics = self.metrics
      Self.update(&users[Int(index)], with: event, flow: flowNumber, screen: screenNumber, metrics: metrics)
      if !values.isEmpty {
        let user = Int(index)
        if users[user].values.isEmpty { users[user].values = Array(repeating: 0, count: metrics.count) }
        for (metric, value) in values { users[user].values[metric] += value }
      }
    }

    private static func intern(_ name: String, in table: inout [String: Int32]) -> Int32 {
      if let known = table[name] { return known }
      let number = Int32(table.count)
      table[name] = number
      return number
    }

    private mutating func expose(_ event: ReportEvent) {
      exposures += 1
      if let flow = event.flow { exposureFlows[flow, default: 0] += 1 }
      if event.fields["source"] == "script" { simulated = true }
      let variation = event.fields["variation"]
      if let variation {
        if variationIDs[variation] == nil, !named.contains(variation) {
          named.append(variation)
          if let id = event.fields["variation_id"].flatMap(Double.init) { variationIDs[variation] = id }
        } else if variationIDs[variation] == nil, let id = event.fields["variation_id"].flatMap(Double.init) {
          variationIDs[variation] = id
        }
      } else {
        unnamedExposure = true
      }
      let name = variation ?? ""
      let variationIndex: Int32
      if let known = orderIndex[name] {
        variationIndex = known
      } else {
        variationIndex = Int32(order.count)
        orderIndex[name] = variationIndex
        order.append(name)
      }
      if let index = userIndex[event.user] {
        let user = Int(index)
        if event.ts < users[user].lastStamp { users[user].run += 1 }
        users[user].lastStamp = event.ts
        if users[user].run != 0 { users[user].severalRuns = true }
        if users[user].variation != variationIndex { users[user].severalVariations = true }
      } else {
        userIndex[event.user] = Int32(users.count)
        var state = UserState(
          variation: variationIndex, lastStamp: event.ts, exposureDay: Self.day(of: event.ts))
        if let sum = preExposure.removeValue(forKey: event.user) {
          state.covariate = sum
          usersWithCovariate += 1
        }
        users.append(state)
      }
    }

    private static func day(of date: Date) -> Int {
      Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    private static func update(
      _ user: inout UserState, with event: ReportEvent, flow flowNumber: Int32?, screen: Int32?,
      metrics: [MetricDefinition]
    ) {
      if event.ts < user.lastStamp { user.run += 1 }
      user.lastStamp = event.ts
      for (index, metric) in metrics.enumerated() {
        let reached: Bool
        switch metric.kind {
        case .event: reached = metric.matches(event)
        case .returnedNextDay: reached = day(of: event.ts) == user.exposureDay + 1
        }
        guard reached else { continue }
        if index < 64 {
          user.converted |= 1 << UInt64(index)
        } else {
          user.moreConverted = (user.moreConverted ?? []).union([index])
        }
      }
      guard let flowNumber else { return }
      if let slot = user.runs.firstIndex(where: { $0.flow == flowNumber }) {
        apply(event, screen: screen, to: &user.runs[slot].run)
      } else if event.event == "flow_started" {
        user.runs.append((flowNumber, CompactRun()))
      }
    }

    private static func apply(_ event: ReportEvent, screen: Int32?, to run: inout CompactRun) {
      guard run.state == .open else { return }
      switch event.event {
      case "flow_started":
        // A new start without an ending: the earlier run stopped (relaunch, dropped flow).
        run.state = .abandoned
      case "screen_viewed":
        guard let screen else { return }
        run.screenCount += 1
        run.lastScreen = screen
      case "flow_completed": run.state = .completed
      case "flow_cancelled": run.state = event.fields["reason"] == "terminated" ? .terminated : .cancelled
      default: break
      }
    }

    /// The report of what was added, with `weights` for the sample ratio check.
    public func report(weights: [Double]? = nil) throws(ReportError) -> ExperimentReport {
      guard exposures > 0 else {
        throw .noExposures(experiment: experiment, experimentsSeen: experimentsSeen.sorted())
      }
      guard let flow = givenFlow ?? Self.mostCommon(exposureFlows) else {
        throw .noFlow(experiment: experiment)
      }
      let flowNumber = flowIndex[flow]
      var listed = order
      if ordersByVariationID {
        listed = named.enumerated().sorted { a, b in
          (variationIDs[a.element] ?? .infinity, a.offset) < (variationIDs[b.element] ?? .infinity, b.offset)
        }.map(\.element)
        if unnamedExposure, !listed.contains("") { listed.append("") }
      }
      // From the order users were indexed in to the order listed.
      let position = Dictionary(uniqueKeysWithValues: listed.enumerated().map { ($0.element, $0.offset) })
      var gathered = listed.map { VariationTotals(name: $0, metricCount: metrics.count) }
      var several = (variations: 0, runs: 0)
      for user in users {
        if user.severalVariations { several.variations += 1 }
        if user.severalRuns { several.runs += 1 }
        let slot = position[order[Int(user.variation)]]!
        gathered[slot].exposed += 1
        for index in metrics.indices {
          let reached =
            index < 64
            ? user.converted & (1 << UInt64(index)) != 0 : user.moreConverted?.contains(index) == true
          if reached { gathered[slot].conversions[index] += 1 }
          let value =
            metrics[index].value == nil ? (reached ? 1 : 0) : user.values.isEmpty ? 0 : user.values[index]
          gathered[slot].metrics[index].add(value, covariate: user.covariate)
        }
        guard let flowNumber, let run = user.runs.first(where: { $0.flow == flowNumber })?.run else {
          continue
        }
        gathered[slot].started += 1
        gathered[slot].completion.add(run.state == .completed ? 1 : 0, covariate: user.covariate)
        switch run.state {
        case .completed:
          gathered[slot].completedSteps.append(Int(run.screenCount))
          continue
        case .cancelled: gathered[slot].cancelled += 1
        case .terminated: gathered[slot].terminated += 1
        // A run still open when the events end stopped without ending.
        case .open, .abandoned: gathered[slot].abandoned += 1
        }
        if run.lastScreen >= 0 { gathered[slot].exitScreens[screens[Int(run.lastScreen)], default: 0] += 1 }
      }
      return ExperimentReport(
        experiment: experiment, flow: flow, variations: gathered, metrics: metrics, weights: weights,
        usersInSeveralVariations: several.variations, usersInSeveralRuns: several.runs, simulated: simulated,
        sequential: sequential,
        cuped: covariate.map { CupedSummary(covariate: $0, usersWithCovariate: usersWithCovariate) })
    }

    private static func mostCommon(_ counts: [String: Int]) -> String? {
      counts.min(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key })?.key
    }
  }
}
