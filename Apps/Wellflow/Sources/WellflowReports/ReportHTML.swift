import Experiments
import FlowHTML
import FlowKit
import Foundation

/// `wellflow report … --html FILE`: each variation's funnel and the completion rates
/// with their intervals as SVG, and a table of the numbers. It draws a plain model of
/// rows, so whatever statistics the report computes can be shown by filling it in.
public struct ReportHTML: Sendable, Equatable {
  public struct Row: Sendable, Equatable {
    public var variation: String
    /// Funnel stages in order, e.g. exposed, started, completed.
    public var funnel: [SVGCharts.Bar]
    /// Completion (or another rate) and its interval, both 0…1.
    public var rate: Double?
    public var interval: ClosedRange<Double>?
    /// Against the control; nil for the control or when it cannot be computed.
    public var pValue: Double?
    /// More columns for the table, in order: `("cancelled", "3")`.
    public var extra: [(name: String, value: String)]

    public init(
      variation: String, funnel: [SVGCharts.Bar], rate: Double?, interval: ClosedRange<Double>?,
      pValue: Double? = nil, extra: [(name: String, value: String)] = []
    ) {
      self.variation = variation
      self.funnel = funnel
      self.rate = rate
      self.interval = interval
      self.pValue = pValue
      self.extra = extra
    }

    public static func == (a: Row, b: Row) -> Bool {
      a.variation == b.variation && a.funnel == b.funnel && a.rate == b.rate && a.interval == b.interval
        && a.pValue == b.pValue && a.extra.map(\.name) == b.extra.map(\.name)
        && a.extra.map(\.value) == b.extra.map(\.value)
    }
  }

  public var experiment: String
  public var flow: String
  /// What the rate is, for the chart's title: `completion`.
  public var rateName: String
  /// Control first.
  public var rows: [Row]
  /// Lines shown above the charts (warnings first, then the verdicts).
  public var notes: [String]
  /// The text report's rates table, header first: every metric against the control.
  public var rateTable: [[String]]

  public init(
    experiment: String, flow: String, rateName: String = "completion", rows: [Row], notes: [String] = [],
    rateTable: [[String]] = []
  ) {
    self.experiment = experiment
    self.flow = flow
    self.rateName = rateName
    self.rows = rows
    self.notes = notes
    self.rateTable = rateTable
  }

  /// The rows of an experiment report: exposed → started → completed, completion with
  /// its 95% interval and the p-value against the control.
  public init(_ report: ExperimentReport) {
    func percent(_ rate: RateResult) -> String {
      var text: String
      if let value = rate.rate {
        text = String(format: "%.1f%%", value * 100)
      } else if let mean = rate.mean {
        text = "mean " + ExperimentReport.plain(mean)
      } else {
        return "–"
      }
      if let p = rate.pValue { text += String(format: " (p %.3g)", p) }
      return text
    }
    self.init(
      experiment: report.experiment, flow: report.flow,
      rows: report.variations.map { variation in
        Row(
          variation: variation.variation,
          funnel: [
            .init(label: "exposed", value: Double(variation.exposed)),
            .init(label: "started", value: Double(variation.started)),
            .init(label: "completed", value: Double(variation.completed)),
          ],
          rate: variation.completionRate,
          interval: variation.completionInterval.flatMap { interval in
            interval.lower <= interval.upper ? interval.lower...interval.upper : nil
          },
          // Holm-corrected across the variations, as the text report prints it.
          pValue: variation.completion.pValue,
          extra: [
            ("cancelled", "\(variation.cancelled)"), ("terminated", "\(variation.terminated)"),
            ("abandoned", "\(variation.abandoned)"),
            ("top exit screen", variation.topExitScreen.map { "\($0.screen) (\($0.users))" } ?? "–"),
            (
              "chance to beat control",
              variation.completion.chanceToBeatControl.map { String(format: "%.1f%%", $0 * 100) } ?? "–"
            ),
          ] + variation.metrics.map { ($0.metric, percent($0)) })
      },
      notes: report.warnings + report.verdicts + report.methodNotes
        + (report.usersInSeveralVariations > 0
          ? [
            "\(report.usersInSeveralVariations) users saw more than one variation;"
              + " each counts in the first."
          ]
          : []),
      rateTable: report.rateTable)
  }

  public var html: String {
    let e = ScreenHTML.escape
    var body = "<main class=\"rp\"><h1>Experiment \(e(experiment))</h1>"
    body +=
      "<p class=\"rp-muted\">flow \(e(flow)) · \(rows.count) variation\(rows.count == 1 ? "" : "s"), the first is the control</p>"
    for note in notes { body += "<p class=\"rp-note\">\(e(note))</p>" }
    body += "<section class=\"rp-charts\">"
    body += SVGCharts.intervals(
      rows.compactMap { row in
        guard let rate = row.rate, let interval = row.interval else { return nil }
        return .init(
          label: row.variation, estimate: rate, lower: interval.lowerBound, upper: interval.upperBound)
      }, title: "\(rateName) rate with 95% interval")
    body += "</section><section class=\"rp-funnels\">"
    let largest = rows.flatMap(\.funnel).map(\.value).filter(\.isFinite).max() ?? 0
    for row in rows {
      body += "<div class=\"rp-funnel\" data-variation=\"\(e(row.variation))\">"
      body += SVGCharts.funnel(row.funnel, title: "\(row.variation) funnel", maximum: largest) + "</div>"
    }
    body += "</section><div class=\"rp-scroll\"><table class=\"rp-table\"><thead><tr><th>variation</th>"
    let stages = rows.first?.funnel.map(\.label) ?? []
    for stage in stages { body += "<th>\(e(stage))</th>" }
    for name in rows.first?.extra.map(\.name) ?? [] { body += "<th>\(e(name))</th>" }
    body += "<th>\(e(rateName))</th><th>95% interval</th><th>p vs control (Holm)</th></tr></thead><tbody>"
    for row in rows {
      body += "<tr><td>\(e(row.variation))</td>"
      for bar in row.funnel { body += "<td>\(formatNumber(bar.value))</td>" }
      for item in row.extra { body += "<td>\(e(item.value))</td>" }
      body += "<td>\(row.rate.map(SVGCharts.percent) ?? "–")</td>"
      body +=
        "<td>\(row.interval.map { "\(SVGCharts.percent($0.lowerBound)) – \(SVGCharts.percent($0.upperBound))" } ?? "–")</td>"
      body += "<td>\(row.pValue.map { $0.isFinite ? String(format: "%.4f", $0) : "–" } ?? "–")</td></tr>"
    }
    body += "</tbody></table></div>"
    if let header = rateTable.first {
      body += "<div class=\"rp-scroll\"><table class=\"rp-table rp-rates\"><thead><tr>"
      for name in header { body += "<th>\(e(name))</th>" }
      body += "</tr></thead><tbody>"
      // A cell's "n/a (why)" becomes "n/a" with a numbered note under the table, so one
      // long reason does not widen the table past the page.
      var reasons: [String] = []
      func cell(_ text: String) -> String {
        guard text.hasPrefix("n/a ("), text.hasSuffix(")") else { return "<td>\(e(text))</td>" }
        let reason = String(text.dropFirst(5).dropLast())
        if !reasons.contains(reason) { reasons.append(reason) }
        let number = (reasons.firstIndex(of: reason) ?? 0) + 1
        return "<td title=\"\(e(reason))\">n/a<sup>\(number)</sup></td>"
      }
      for row in rateTable.dropFirst() {
        body += "<tr>" + row.map(cell).joined() + "</tr>"
      }
      body += "</tbody></table></div>"
      for (index, reason) in reasons.enumerated() {
        body += "<p class=\"rp-muted rp-footnote\"><sup>\(index + 1)</sup> n/a: \(e(reason))</p>"
      }
    }
    body += "</main>"
    return ScreenHTML.document(title: "Experiment \(experiment)", body: body, extraStyle: Self.style)
  }

  static let style = """
    .rp { max-width: 1280px; margin: 0 auto; padding: 16px 24px 48px; }
    .rp-muted { color: #6b7080; }
    .rp-note { background: #fffbeb; border: 1px solid #fde68a; padding: 8px; border-radius: 8px; }
    .rp-charts, .rp-funnels { display: flex; flex-wrap: wrap; gap: 16px; margin: 16px 0; }
    .rp-funnel, .rp-charts svg { background: #fff; border: 1px solid #dcdfe8; border-radius: 10px; padding: 8px; }
    .rp-scroll { overflow-x: auto; }
    .rp-table { border-collapse: collapse; background: #fff; margin: 16px 0; }
    .rp-table th, .rp-table td { border: 1px solid #dcdfe8; padding: 4px 8px; text-align: right; white-space: nowrap; }
    .rp-table th { white-space: normal; }
    .rp-table td:first-child, .rp-table th:first-child { text-align: left; }
    """
}
