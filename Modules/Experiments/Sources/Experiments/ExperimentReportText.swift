import FlowKit
import Foundation

extension ExperimentReport {
  /// A plain-text report for the terminal (`--format text`): warnings first, the funnel,
  /// then each rate with its interval, corrected p-value and chance to beat control.
  /// What a reader must know before any figure, in order: a guardrail that got worse, a
  /// sample ratio mismatch, users seen in several runs, then that the events were
  /// simulated. Every format shows these first.
  public var warnings: [String] {
    var warnings = guardrailWarnings
    if let check = sampleRatio, check.mismatch {
      warnings.append(
        "sample ratio mismatch: " + Self.ratioLine(check)
          + "; users did not land in the variations as assigned, so the results below are untrustworthy")
    }
    if usersInSeveralRuns > 0 {
      warnings.append(
        "several runs: \(usersInSeveralRuns) user(s) were exposed in more than one run (their events start over "
          + "in time, as when runs are added with --append), so two populations are mixed; each user counts in "
          + "their first run. Write one run per file (--events without --append)")
    }
    if simulated {
      warnings.append("simulated: these events come from scripted runs (wellflow run), not from people")
    }
    return warnings
  }

  /// One line per guardrail metric and variation whose difference's interval lies wholly
  /// on the worse side of 0 (below it, or above it when lower is better).
  var guardrailWarnings: [String] {
    guard let control = variations.first else { return [] }
    var lines: [String] = []
    for (index, name) in metricNames.enumerated() {
      for variation in variations.dropFirst() where index < variation.metrics.count {
        let result = variation.metrics[index]
        guard result.guardrail == true, let difference = result.difference?.absolute,
          result.lowerIsBetter == true ? difference.lower > 0 : difference.upper < 0
        else { continue }
        lines.append(
          "guardrail got worse: " + Self.verdict(variation.variation, control.variation, name, result))
      }
    }
    return lines
  }

  /// How the intervals were made, when not the default: sequential, CUPED.
  public var methodNotes: [String] {
    var notes: [String] = []
    if sequential == true {
      notes.append(
        "sequential: intervals and p-values stay valid however often you look (GrowthBook's sequential "
          + "test, tuned for 5,000 users)")
    }
    if let cuped {
      notes.append(
        cuped.applied
          ? "CUPED: adjusted by the sum of '\(cuped.covariate.value)' over each user's \(cuped.covariate.event) events before exposure (\(cuped.usersWithCovariate) user(s) had one; others count as 0)"
          : "CUPED: no exposed user had a \(cuped.covariate.event) event with '\(cuped.covariate.value)' before exposure, so nothing was adjusted"
      )
    }
    return notes
  }

  /// One line per non-control variation on completion, said as a decision:
  /// `quick beats full on completion: +44.1 pp [41.8, 46.4]` when the 95% interval of the
  /// difference lies above 0, `… is worse than …` below it, `no clear difference` across it.
  public var verdicts: [String] {
    guard let control = variations.first else { return [] }
    return variations.dropFirst().map { variation in
      Self.verdict(variation.variation, control.variation, "completion", variation.completion)
    }
  }

  static func verdict(_ variation: String, _ control: String, _ metric: String, _ rate: RateResult) -> String
  {
    guard let difference = rate.difference?.absolute else {
      return "\(variation) vs \(control) on \(metric): not applicable (no users to compare on one side)"
    }
    let figure =
      rate.mean != nil || rate.rate == nil && rate.interval == nil ? amount(difference) : points(difference)
    // Lower is better: a difference below 0 is the win.
    let better = rate.lowerIsBetter == true ? difference.upper < 0 : difference.lower > 0
    let worse = rate.lowerIsBetter == true ? difference.lower > 0 : difference.upper < 0
    if better { return "\(variation) beats \(control) on \(metric): \(figure)" }
    if worse { return "\(variation) is worse than \(control) on \(metric): \(figure)" }
    return "\(variation) vs \(control) on \(metric): no clear difference, \(figure)"
  }

  /// `+44.1 pp [41.8, 46.4]`: percentage points with the 95% interval.
  static func points(_ difference: DifferenceInterval) -> String {
    String(
      format: "%+.1f pp [%.1f, %.1f]", difference.estimate * 100, difference.lower * 100,
      difference.upper * 100)
  }

  /// `+0.21 [-0.05, 0.47]`: a mean's difference with the 95% interval.
  static func amount(_ difference: DifferenceInterval) -> String {
    "\(signed(difference.estimate)) [\(plain(difference.lower)), \(plain(difference.upper))]"
  }

  /// Three significant digits at least, two decimals at most below 1000: `3.42`, `1250`.
  public static func plain(_ value: Double) -> String {
    let text = abs(value) >= 1000 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    return text == "-0.00" ? "0.00" : text
  }

  static func signed(_ value: Double) -> String {
    let text = plain(value)
    return text.hasPrefix("-") || text == "0.00" ? text : "+" + text
  }

  /// `+12.0% [3.1, 20.9]`: relative to the control, with the 95% interval.
  static func relative(_ difference: DifferenceInterval) -> String {
    String(
      format: "%+.1f%% [%.1f, %.1f]", difference.estimate * 100, difference.lower * 100,
      difference.upper * 100)
  }

  /// The rates table, header first: each metric's rate per variation with its interval,
  /// the difference to control (absolute and relative, each with its 95% interval), the
  /// Holm-corrected p-value and the chance to beat control. The text and HTML reports
  /// both show it.
  public var rateTable: [[String]] {
    let header = [
      "", "variation", "users", "rate", "95% CI", "vs control [95% CI]", "relative [95% CI]", "p (Holm)",
      "chance to beat",
    ]
    var rows: [[String]] = []
    let names = ["completion"] + metricNames
    for (index, name) in names.enumerated() {
      for (position, v) in variations.enumerated() {
        let rate = index == 0 ? v.completion : v.metrics[index - 1]
        let label = rate.lowerIsBetter == true ? name + " (lower is better)" : name
        rows.append(Self.rateRow(position == 0 ? label : "", v.variation, rate, isControl: position == 0))
      }
    }
    return [header] + rows
  }

  public func renderText() -> String {
    var text = ""
    for warning in warnings { text += warning + "\n\n" }
    let verdicts = verdicts
    if !verdicts.isEmpty { text += verdicts.joined(separator: "\n") + "\n\n" }
    let notes = methodNotes
    if !notes.isEmpty { text += notes.joined(separator: "\n") + "\n\n" }
    text += "Experiment \(experiment), flow \(flow): completion = completed / started "
    text += "(each user's first run after exposure)\n\n"
    let funnelHeader = [
      "variation", "exposed", "started", "completed", "cancelled", "terminated", "abandoned", "median steps",
      "top exit screen",
    ]
    let funnel = variations.map { v in
      [v.variation]
        + [v.exposed, v.started, v.completed, v.cancelled, v.terminated, v.abandoned].map { String($0) }
        + [
          v.medianStepsToComplete.map { String(format: "%g", $0) } ?? Self.none,
          v.topExitScreen.map { "\($0.screen) (\($0.users))" } ?? Self.none,
        ]
    }
    text += Self.table([funnelHeader] + funnel, rightAligned: [1, 2, 3, 4, 5, 6, 7]) + "\n"
    text += "\n" + Self.table(rateTable, rightAligned: [2, 3]) + "\n"
    if let check = sampleRatio, !check.mismatch {
      text += "\nsample ratio: " + Self.ratioLine(check) + "\n"
    }
    if terminatedTotal > 0 {
      text += "\n\(terminatedTotal) run(s) were ended by the host (terminated), not by people cancelling.\n"
    }
    if usersInSeveralVariations > 0 {
      text += "\n\(usersInSeveralVariations) user(s) saw more than one variation; "
      text += "each counts in the first one seen.\n"
    }
    return text
  }

  private var terminatedTotal: Int { variations.reduce(0) { $0 + $1.terminated } }

  /// `--format csv`: one row per rate and variation.
  public func renderCSV() -> String {
    var lines = [
      "metric,variation,users,conversions,rate,ci_lower,ci_upper,p_value_holm,chance_to_beat_control,srm_p_value,trustworthy,simulated,"
        + "difference,difference_lower,difference_upper,relative,relative_lower,relative_upper"
    ]
    let srm = sampleRatio.map { Self.number($0.pValue) } ?? ""
    for (index, name) in (["completion"] + metricNames).enumerated() {
      for v in variations {
        let rate = index == 0 ? v.completion : v.metrics[index - 1]
        let cells = [
          csvField(name), csvField(v.variation), String(rate.users), String(rate.conversions),
          (rate.rate ?? rate.mean).map(Self.number) ?? "",
          (rate.interval ?? rate.meanInterval).map { Self.number($0.lower) } ?? "",
          (rate.interval ?? rate.meanInterval).map { Self.number($0.upper) } ?? "",
          rate.pValue.map(Self.number) ?? "",
          rate.chanceToBeatControl.map(Self.number) ?? "", srm, trustworthy ? "true" : "false",
          simulated ? "true" : "false",
        ]
        let absolute = rate.difference?.absolute
        let relative = rate.difference?.relative
        let differences = [
          absolute?.estimate, absolute?.lower, absolute?.upper, relative?.estimate, relative?.lower,
          relative?.upper,
        ].map { $0.map(Self.number) ?? "" }
        lines.append((cells + differences).joined(separator: ","))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static let none = "–"

  private static func ratioLine(_ check: SampleRatioCheck) -> String {
    let observed = check.observed.map(String.init).joined(separator: "/")
    let weights = check.weights.map { String(format: "%.4g%%", $0 * 100) }.joined(separator: "/")
    return
      "exposures \(observed) against \(check.weightsFromFile ? "weights" : "equal weights (no experiment file given)") "
      + "\(weights): chi-square \(String(format: "%.2f", check.chiSquare)), p \(pText(check.pValue))"
  }

  /// What a figure that cannot be computed (no users) shows: never 0%.
  static let notApplicable = "n/a"

  private static func rateRow(_ name: String, _ variation: String, _ rate: RateResult, isControl: Bool)
    -> [String]
  {
    let na = notApplicable
    if rate.mean != nil || rate.standardDeviation != nil {
      return [
        name, variation, String(rate.users), rate.mean.map { "mean " + plain($0) } ?? na,
        rate.meanInterval.map { plain($0.lower) + "–" + plain($0.upper) } ?? na,
        isControl ? "control" : rate.difference.map { amount($0.absolute) } ?? na,
        isControl ? "" : relativeCell(rate.difference),
        isControl ? "" : rate.pValue.map(comparisonP) ?? na,
        isControl ? "" : rate.chanceToBeatControl.map(percent) ?? na,
      ]
    }
    return [
      name, variation, String(rate.users), rate.rate.map(percent) ?? na,
      rate.interval.map { percent($0.lower) + "–" + percent($0.upper) } ?? na,
      isControl ? "control" : rate.difference.map { points($0.absolute) } ?? na,
      isControl ? "" : relativeCell(rate.difference),
      isControl ? "" : rate.pValue.map(comparisonP) ?? na,
      isControl ? "" : rate.chanceToBeatControl.map(percent) ?? na,
    ]
  }

  /// The relative difference with its interval, or `n/a (why)`: never a collapsed
  /// `+0.0% [0.0, 0.0]`.
  static func relativeCell(_ difference: Difference?) -> String {
    guard let difference else { return notApplicable }
    if let interval = difference.relative { return relative(interval) }
    return difference.relativeNotApplicable.map { "\(notApplicable) (\($0))" } ?? notApplicable
  }

  /// A comparison's p-value: `< 0.001` below that, else four decimals.
  static func comparisonP(_ value: Double) -> String {
    value < 0.001 ? "< 0.001" : String(format: "%.4f", value)
  }

  private static func table(_ rows: [[String]], rightAligned: Set<Int>) -> String {
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
      let cells = row.indices.map { column -> String in
        let padding = String(repeating: " ", count: widths[column] - row[column].count)
        return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
      }
      // Trailing padding removed from the end: reversing the line was ~1 µs a character.
      var line = cells.joined(separator: "  ")
      while line.utf8.last == UInt8(ascii: " ") { line.removeLast() }
      return line
    }.joined(separator: "\n")
  }

  private static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }

  private static func pText(_ value: Double) -> String {
    value < 0.0001 ? String(format: "%.1e", value) : String(format: "%.4f", value)
  }

  private static func number(_ value: Double) -> String { String(format: "%.6g", value) }

}
