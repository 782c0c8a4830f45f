import Foundation

/// One analytics event as the report reads it (SPEC §5). A decoding layer maps NDJSON
/// lines onto it; extra fields (`experiment`, `variation`, `screen`, …) go in `fields`.
public struct ReportEvent: Sendable, Equatable, Codable {
  public var ts: Date
  public var user: String
  public var event: String
  public var flow: String?
  public var variant: String?
  public var fields: [String: String]

  public init(
    ts: Date, user: String, event: String, flow: String? = nil, variant: String? = nil,
    fields: [String: String] = [:]
  ) {
    self.ts = ts
    self.user = user
    self.event = event
    self.flow = flow
    self.variant = variant
    self.fields = fields
  }
}

/// Why a report could not be made.
public enum ReportError: Error, Equatable, CustomStringConvertible {
  /// No `experiment_viewed` event names the experiment.
  case noExposures(experiment: String, experimentsSeen: [String])
  /// The exposures carry no flow and none was given.
  case noFlow(experiment: String)

  public var description: String {
    switch self {
    case .noExposures(let experiment, let seen):
      let known =
        seen.isEmpty
        ? "the events name no experiment at all" : "experiments seen: \(seen.joined(separator: ", "))"
      return "no experiment_viewed events for experiment \(experiment); check the key (\(known))"
    case .noFlow(let experiment):
      return "experiment_viewed events for \(experiment) name no flow; give the experiment's flow explicitly"
    }
  }
}

/// The screen where most users who did not complete left, and how many left there.
public struct ExitScreen: Sendable, Equatable, Codable {
  public var screen: String
  public var users: Int

  public init(screen: String, users: Int) {
    self.screen = screen
    self.users = users
  }
}

/// The funnel of one variation. Counts are users; each user's first run of the flow after
/// their first exposure decides their outcome, so every user is one independent trial.
public struct VariationReport: Sendable, Equatable, Codable {
  public var variation: String
  /// Distinct users with `experiment_viewed` for this variation.
  public var exposed: Int
  /// Exposed users who then started the experiment's flow.
  public var started: Int
  public var completed: Int
  public var cancelled: Int
  /// Runs that stopped without ending (the app quit, or the flow was started again).
  public var abandoned: Int
  /// completed / started; nil when nobody started.
  public var completionRate: Double?
  /// 95% Wilson interval of `completionRate`.
  public var completionInterval: ProportionInterval?
  /// The last screen viewed in runs that were cancelled or abandoned, most common first.
  public var topExitScreen: ExitScreen?
  /// Median count of `screen_viewed` events in completed runs.
  public var medianStepsToComplete: Double?
  /// Against the first (control) variation; nil for the control itself.
  public var versusControl: ProportionTest?
}

/// Per-variation funnel of an experiment, built from analytics events
/// (`wellflow report EVENTS --experiment KEY`).
public struct ExperimentReport: Sendable, Equatable, Codable {
  public var experiment: String
  public var flow: String
  /// Control first.
  public var variations: [VariationReport]
  /// Users exposed to more than one variation; each counts in the first they saw.
  public var usersInSeveralVariations: Int

  /// Builds the report from `events` in the order they were recorded (file order, not
  /// timestamps: separate runs may reuse the same clock times).
  ///
  /// - Parameters:
  ///   - flow: the experiment's flow; by default the flow its exposures name.
  ///   - variationOrder: variations to list first, in order (the first is the control),
  ///     even without exposures; others follow in order of first exposure.
  public init(
    experiment: String, events: [ReportEvent], flow: String? = nil, variationOrder: [String] = []
  ) throws(ReportError) {
    let exposures = events.filter { $0.event == "experiment_viewed" && $0.fields["experiment"] == experiment }
    guard !exposures.isEmpty else {
      let seen = Set(events.filter { $0.event == "experiment_viewed" }.compactMap { $0.fields["experiment"] })
      throw .noExposures(experiment: experiment, experimentsSeen: seen.sorted())
    }
    guard let flow = flow ?? Self.mostCommon(exposures.compactMap(\.flow)) else {
      throw .noFlow(experiment: experiment)
    }

    var variationOf: [String: String] = [:]
    var order = variationOrder
    var several: Set<String> = []
    var runs: [String: Run] = [:]
    for event in events {
      if event.event == "experiment_viewed", event.fields["experiment"] == experiment {
        let variation = event.fields["variation"] ?? ""
        if !order.contains(variation) { order.append(variation) }
        if let first = variationOf[event.user] {
          if first != variation { several.insert(event.user) }
        } else {
          variationOf[event.user] = variation
        }
        continue
      }
      guard variationOf[event.user] != nil, event.flow == flow else { continue }
      runs[event.user, default: .notStarted].apply(event)
    }

    self.experiment = experiment
    self.flow = flow
    self.usersInSeveralVariations = several.count
    var reports: [VariationReport] = []
    for variation in order {
      let users = variationOf.filter { $0.value == variation }.map(\.key)
      let outcomes = users.compactMap { runs[$0]?.outcome }
      reports.append(Self.summarize(variation: variation, exposed: users.count, outcomes: outcomes))
    }
    if let control = reports.first {
      for index in reports.indices.dropFirst() {
        reports[index].versusControl = Statistics.twoProportionTest(
          controlSuccesses: control.completed, controlTrials: control.started,
          successes: reports[index].completed, trials: reports[index].started)
      }
    }
    self.variations = reports
  }

  private static func summarize(variation: String, exposed: Int, outcomes: [Run.Outcome]) -> VariationReport {
    let completedSteps = outcomes.compactMap { $0.ending == .completed ? $0.screens.count : nil }
    let left = outcomes.filter { $0.ending != .completed }
    let started = outcomes.count
    return VariationReport(
      variation: variation,
      exposed: exposed,
      started: started,
      completed: completedSteps.count,
      cancelled: left.filter { $0.ending == .cancelled }.count,
      abandoned: left.filter { $0.ending == .abandoned }.count,
      completionRate: started > 0 ? Double(completedSteps.count) / Double(started) : nil,
      completionInterval: Statistics.wilsonInterval(successes: completedSteps.count, trials: started),
      topExitScreen: topExit(left.compactMap { $0.screens.last }),
      medianStepsToComplete: median(completedSteps),
      versusControl: nil
    )
  }

  private static func topExit(_ screens: [String]) -> ExitScreen? {
    let counts = Dictionary(screens.map { ($0, 1) }, uniquingKeysWith: +)
    // Ties go to the alphabetically first screen so the report is deterministic.
    guard let top = counts.min(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) else {
      return nil
    }
    return ExitScreen(screen: top.key, users: top.value)
  }

  private static func median(_ values: [Int]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    if sorted.count % 2 == 1 { return Double(sorted[middle]) }
    return Double(sorted[middle - 1] + sorted[middle]) / 2
  }

  private static func mostCommon(_ values: [String]) -> String? {
    let counts = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +)
    return counts.min(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key })?.key
  }
}

/// A user's first run of the experiment's flow after exposure.
private enum Run {
  enum Ending: Equatable { case completed, cancelled, abandoned }

  struct Outcome {
    var ending: Ending
    var screens: [String]
  }

  case notStarted
  case open(screens: [String])
  case finished(Outcome)

  mutating func apply(_ event: ReportEvent) {
    switch (self, event.event) {
    case (.notStarted, "flow_started"):
      self = .open(screens: [])
    case (.open, "flow_started"):
      // A new start without an ending: the earlier run stopped (relaunch, dropped flow).
      self = .finished(Outcome(ending: .abandoned, screens: screens))
    case (.open(let screens), "screen_viewed"):
      self = .open(screens: screens + [event.fields["screen"]].compactMap { $0 })
    case (.open(let screens), "flow_completed"):
      self = .finished(Outcome(ending: .completed, screens: screens))
    case (.open(let screens), "flow_cancelled"):
      self = .finished(Outcome(ending: .cancelled, screens: screens))
    default:
      break
    }
  }

  private var screens: [String] {
    if case .open(let screens) = self { return screens }
    return []
  }

  /// The outcome so far; a run still open when the events end stopped without ending.
  var outcome: Outcome? {
    switch self {
    case .notStarted: return nil
    case .open(let screens): return Outcome(ending: .abandoned, screens: screens)
    case .finished(let outcome): return outcome
    }
  }
}
