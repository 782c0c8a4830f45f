import Foundation

/// One analytics event as the report reads it (`ts`, `user`, `event`, then fields). A
/// decoding layer maps NDJSON lines onto it; extra fields (`experiment`, `variation`,
/// `screen`, …) go in `fields`.
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
  /// A mean metric's field held something other than a finite number.
  case nonNumericValue(metric: String, field: String, value: String)
  /// The covariate's field held something other than a finite number.
  case nonNumericCovariate(event: String, field: String, value: String)

  public var description: String {
    switch self {
    case .noExposures(let experiment, let seen):
      let known =
        seen.isEmpty
        ? "the events name no experiment at all" : "experiments seen: \(seen.joined(separator: ", "))"
      return "no experiment_viewed events for experiment \(experiment); check the key (\(known))"
    case .noFlow(let experiment):
      return "experiment_viewed events for \(experiment) name no flow; give the experiment's flow explicitly"
    case .nonNumericValue(let metric, let field, let value):
      return "metric '\(metric)': field '\(field)' must be a number, got '\(value)'"
    case .nonNumericCovariate(let event, let field, let value):
      return "covariate: field '\(field)' of \(event) must be a number, got '\(value)'"
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

/// A figure the report computes besides completion (an experiment file's `metrics:`): the
/// share of exposed users who, after their first exposure, sent a matching event, or came
/// back the next calendar day (UTC); or, with `value`, the mean over exposed users of the
/// sum of that numeric field over their matching events after exposure (0 without any).
public struct MetricDefinition: Sendable, Equatable, Codable {
  public enum Kind: String, Sendable, Codable {
    case event
    case returnedNextDay = "returned_next_day"
  }

  public var name: String
  public var kind: Kind
  /// The event's name (`screen_viewed`, `mood_saved`, …), for `.event`.
  public var event: String?
  /// Only events with this `screen` field.
  public var screen: String?
  /// Only events of this flow.
  public var flow: String?
  /// A numeric field of the event: the metric is a mean of its per-user sums, not a rate.
  public var value: String?
  /// The report says first when a guardrail got worse (its interval lies below 0, or above
  /// 0 when lower is better).
  public var guardrail: Bool
  /// A metric where less is better (errors, time to finish, cancellations): a variation
  /// beats the control when its difference lies below 0, and its chance to beat control is
  /// the chance it is lower.
  public var lowerIsBetter: Bool

  public init(
    name: String, kind: Kind = .event, event: String? = nil, screen: String? = nil, flow: String? = nil,
    value: String? = nil, guardrail: Bool = false, lowerIsBetter: Bool = false
  ) {
    self.name = name
    self.kind = kind
    self.event = event
    self.screen = screen
    self.flow = flow
    self.value = value
    self.guardrail = guardrail
    self.lowerIsBetter = lowerIsBetter
  }

  public var scale: MetricScale { value == nil ? .proportion : .mean }

  public static let returnedNextDay = MetricDefinition(name: "returned_next_day", kind: .returnedNextDay)

  /// Whether `event` counts for this metric (`.event` metrics only).
  func matches(_ candidate: ReportEvent) -> Bool {
    candidate.event == event && (screen == nil || candidate.fields["screen"] == screen)
      && (flow == nil || candidate.flow == flow)
  }
}

/// One variation's value of a rate (completion, or a metric) or of a mean metric.
public struct RateResult: Sendable, Equatable, Codable {
  /// The metric's name (`completion` for completion).
  public var metric: String
  /// Users counted: those who started the flow (completion) or were exposed (metrics).
  public var users: Int
  /// Users who converted; for a mean metric, users with at least one matching event.
  public var conversions: Int
  /// Nil for a mean metric.
  public var rate: Double?
  /// 95% Wilson interval of the rate.
  public var interval: ProportionInterval?
  /// A mean metric's mean per user, with its 95% t interval and standard deviation.
  public var mean: Double?
  public var meanInterval: ProportionInterval?
  public var standardDeviation: Double?
  /// Present (true) for a guardrail metric.
  public var guardrail: Bool?
  /// Present (true) for a metric where lower is better: the verdict and chance to beat
  /// read it so.
  public var lowerIsBetter: Bool?
  /// Two-proportion z-test against the control, Holm-corrected across the variations;
  /// nil for the control and when it cannot be computed.
  public var pValue: Double?
  /// Probability that this variation's rate is above the control's (Beta(1, 1) priors);
  /// below it for a metric where lower is better.
  public var chanceToBeatControl: Double?
  /// Against the control, with 95% intervals; nil for the control and without users.
  public var difference: Difference?
}

/// Pearson's chi-square test of the exposures against the weights: a low p-value means
/// users did not land in the variations as assigned (a sample ratio mismatch).
public struct SampleRatioCheck: Sendable, Equatable, Codable {
  /// Below this the report calls it a mismatch.
  public static let threshold = 0.001

  public var observed: [Int]
  /// The weights tested against, normalized to sum to 1.
  public var weights: [Double]
  /// Whether the weights came from the experiment file (else equal weights were assumed).
  public var weightsFromFile: Bool
  public var chiSquare: Double
  public var pValue: Double
  public var mismatch: Bool { pValue < Self.threshold }
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
  /// Cancelled by the person (back, close, a cancel button).
  public var cancelled: Int
  /// Ended by the host (`reason: terminated`: the app quit under the flow, or a failed
  /// script stopped it), counted apart from people cancelling.
  public var terminated: Int
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
  /// Against the first (control) variation; nil for the control itself. Its p-value is
  /// the raw one; `completion.pValue` is Holm-corrected.
  public var versusControl: ProportionTest?
  /// Completion as a rate with its corrected p-value and chance to beat control.
  public var completion: RateResult
  /// The experiment file's metrics, in its order.
  public var metrics: [RateResult]
}

/// CUPED's covariate, as an experiment's `covariate: {event, value}` names it: per user,
/// the sum of the numeric field `value` over their `event` events before their first
/// exposure, a figure fixed before they saw the variation.
public struct CovariateDefinition: Sendable, Equatable, Codable {
  public var event: String
  public var value: String

  public init(event: String, value: String) {
    self.event = event
    self.value = value
  }
}

/// CUPED: how each user's pre-exposure covariate adjusted the comparisons.
public struct CupedSummary: Sendable, Equatable, Codable {
  /// The experiment's `covariate:`.
  public var covariate: CovariateDefinition
  /// Exposed users with at least one such event before exposure (the others count as 0).
  public var usersWithCovariate: Int
  /// False when no exposed user had one: nothing was adjusted.
  public var applied: Bool

  public init(covariate: CovariateDefinition, usersWithCovariate: Int) {
    self.covariate = covariate
    self.usersWithCovariate = usersWithCovariate
    applied = usersWithCovariate > 0
  }
}

/// One variation's counts and sums: all the report is computed from. Completion's sums
/// are over users who started the flow, a metric's over exposed users.
public struct VariationTotals: Sendable, Equatable {
  public var name: String
  public var exposed = 0
  public var started = 0
  public var cancelled = 0
  public var terminated = 0
  public var abandoned = 0
  /// Screens viewed in each completed run.
  public var completedSteps: [Int] = []
  /// Last screens of runs that did not complete, with how many ended there.
  public var exitScreens: [String: Int] = [:]
  /// Completed (1) or not (0) per user who started.
  public var completion = MetricSums()
  /// Per metric: users who reached it (sent a matching event) and its sums.
  public var conversions: [Int]
  public var metrics: [MetricSums]

  public init(name: String, metricCount: Int) {
    self.name = name
    conversions = Array(repeating: 0, count: metricCount)
    metrics = Array(repeating: MetricSums(), count: metricCount)
  }
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
  /// Users exposed in more than one run (their events start over in time, as when runs are
  /// added to one file with `--append`); each counts in the first run.
  public var usersInSeveralRuns: Int
  /// The sample ratio check; nil with fewer than two variations.
  public var sampleRatio: SampleRatioCheck?
  /// False when the sample ratio check failed: the comparisons cannot be trusted.
  public var trustworthy: Bool
  /// Whether exposures came from scripted runs (`source: script`), not people.
  public var simulated: Bool
  /// Names of the metrics reported per variation.
  public var metricNames: [String]
  /// True when the intervals and p-values are sequential (always valid, however often the
  /// report is looked at); absent otherwise.
  public var sequential: Bool?
  /// The CUPED adjustment, when the experiment names a covariate.
  public var cuped: CupedSummary?

  /// Builds the report from `events` in the order they were recorded (file order, not
  /// timestamps: separate runs may reuse the same clock times).
  ///
  /// A user's events within one run never go back in time (a run stamps each event after
  /// the one before); an event of theirs stamped before their previous one starts a new
  /// run: another app, started afresh at its script's start time, as a rerun appended to
  /// the file is. Events carry no run id; this also catches files joined by hand or written
  /// before `--events` started its file anew. Equal stamps stay in one run.
  ///
  /// - Parameters:
  ///   - flow: the experiment's flow; by default the flow its exposures name.
  ///   - variationOrder: variations to list first, in order (the first is the control),
  ///     even without exposures; others follow in order of first exposure.
  ///   - weights: the experiment's weights for `variationOrder`; equal weights otherwise.
  ///   - metrics: rates and means to report besides completion.
  public init(
    experiment: String, events: [ReportEvent], flow: String? = nil, variationOrder: [String] = [],
    weights: [Double]? = nil, metrics: [MetricDefinition] = [], covariate: CovariateDefinition? = nil,
    sequential: Bool = false
  ) throws(ReportError) {
    var builder = Builder(
      experiment: experiment, flow: flow, variationOrder: variationOrder, metrics: metrics,
      covariate: covariate, sequential: sequential)
    for event in events { try builder.addChecked(event) }
    self = try builder.report(weights: weights)
  }

  /// The report from each variation's counts and sums (`VariationTotals`, control first):
  /// what a streaming pass over events or a database query gathers.
  public init(
    experiment: String, flow: String, variations gathered: [VariationTotals], metrics: [MetricDefinition],
    weights: [Double]?, usersInSeveralVariations: Int, usersInSeveralRuns: Int, simulated: Bool,
    sequential: Bool = false, cuped: CupedSummary? = nil
  ) {
    self.experiment = experiment
    self.flow = flow
    self.usersInSeveralVariations = usersInSeveralVariations
    self.usersInSeveralRuns = usersInSeveralRuns
    self.simulated = simulated
    self.metricNames = metrics.map(\.name)
    self.sequential = sequential ? true : nil
    self.cuped = cuped
    let options = ComparisonOptions(sequential: sequential, cuped: cuped?.applied ?? false)
    var reports: [VariationReport] = []
    for variation in gathered {
      var report = Self.summarize(variation: variation)
      report.metrics = metrics.indices.map { index in
        Self.result(metrics[index], sums: variation.metrics[index], reached: variation.conversions[index])
      }
      reports.append(report)
    }
    if let control = reports.first {
      for index in reports.indices.dropFirst() {
        reports[index].versusControl = Statistics.twoProportionTest(
          controlSuccesses: control.completed, controlTrials: control.started,
          successes: reports[index].completed, trials: reports[index].started)
      }
      Self.compare(&reports, \.completion, gathered.map(\.completion), .proportion, options)
      for metric in metrics.indices {
        Self.compare(
          &reports, \.metrics[metric], gathered.map { $0.metrics[metric] }, metrics[metric].scale, options,
          lowerIsBetter: metrics[metric].lowerIsBetter)
      }
    }
    self.variations = reports

    if reports.count >= 2 {
      var used = GrowthBook.equalWeights(reports.count)
      var fromFile = false
      if let weights, weights.count == reports.count, weights.allSatisfy({ $0.isFinite && $0 >= 0 }),
        weights.reduce(0, +) > 0
      {
        let sum = weights.reduce(0, +)
        used = weights.map { $0 / sum }
        fromFile = true
      }
      let observed = reports.map(\.exposed)
      // A variation weighted 0 takes no part in the test, unless someone landed in it,
      // which is a mismatch by itself.
      let weighted = used.indices.filter { used[$0] > 0 }
      let strayed = used.indices.contains { used[$0] == 0 && observed[$0] > 0 }
      let keptWeight = weighted.map { used[$0] }.reduce(0, +)
      let test =
        weighted.count >= 2
        ? Statistics.sampleRatioTest(
          observed: weighted.map { observed[$0] }, weights: weighted.map { used[$0] / keptWeight })
        : nil
      if strayed || test != nil {
        sampleRatio = SampleRatioCheck(
          observed: observed, weights: used, weightsFromFile: fromFile, chiSquare: test?.statistic ?? 0,
          pValue: strayed ? 0 : test?.pValue ?? 1)
      }
    }
    trustworthy = !(sampleRatio?.mismatch ?? false)
  }

  private static func rate(_ name: String, conversions: Int, users: Int) -> RateResult {
    RateResult(
      metric: name, users: users, conversions: conversions,
      rate: users > 0 ? Double(conversions) / Double(users) : nil,
      interval: Statistics.wilsonInterval(successes: conversions, trials: users))
  }

  private static func result(_ metric: MetricDefinition, sums: MetricSums, reached: Int) -> RateResult {
    var result: RateResult
    switch metric.scale {
    case .proportion:
      result = rate(metric.name, conversions: reached, users: sums.count)
    case .mean:
      result = RateResult(metric: metric.name, users: sums.count, conversions: reached)
      result.mean = sums.mean
      result.meanInterval = Statistics.meanInterval(sums)
      result.standardDeviation = sums.count > 1 ? sums.sampleVariance.squareRoot() : nil
    }
    if metric.guardrail { result.guardrail = true }
    if metric.lowerIsBetter { result.lowerIsBetter = true }
    return result
  }

  /// Fills each non-control variation's difference, Holm-corrected p-value and chance to
  /// beat control, from the variations' sums.
  private static func compare(
    _ reports: inout [VariationReport], _ path: WritableKeyPath<VariationReport, RateResult>,
    _ sums: [MetricSums], _ scale: MetricScale, _ options: ComparisonOptions, lowerIsBetter: Bool = false
  ) {
    var raw: [Double?] = []
    for index in reports.indices.dropFirst() {
      let comparison = Statistics.compare(
        control: sums[0], variation: sums[index], scale: scale, options: options)
      raw.append(comparison?.pValue)
      reports[index][keyPath: path].difference = comparison?.difference
      reports[index][keyPath: path].chanceToBeatControl = comparison?.chanceToBeat.map {
        lowerIsBetter ? 1 - $0 : $0
      }
    }
    for (offset, adjusted) in Statistics.holm(raw).enumerated() {
      reports[offset + 1][keyPath: path].pValue = adjusted
    }
  }

  private static func summarize(variation gathered: VariationTotals) -> VariationReport {
    let completedSteps = gathered.completedSteps
    let started = gathered.started
    let completed = completedSteps.count
    return VariationReport(
      variation: gathered.name,
      exposed: gathered.exposed,
      started: started,
      completed: completed,
      cancelled: gathered.cancelled,
      terminated: gathered.terminated,
      abandoned: gathered.abandoned,
      completionRate: started > 0 ? Double(completed) / Double(started) : nil,
      completionInterval: Statistics.wilsonInterval(successes: completed, trials: started),
      topExitScreen: topExit(gathered.exitScreens),
      medianStepsToComplete: median(completedSteps),
      versusControl: nil,
      completion: rate("completion", conversions: completed, users: started),
      metrics: []
    )
  }

  /// The screen most left from; ties go to the alphabetically first screen so the report
  /// is deterministic.
  private static func topExit(_ counts: [String: Int]) -> ExitScreen? {
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
}
