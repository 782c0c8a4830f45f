import FlowHTML
import FlowKit
import Foundation
import WellflowScript

/// `wellflow run --html FILE`: one self-contained page with the totals, then the
/// failing script runs (their `file:line:column` message and the screen they failed on),
/// then the passing ones; each step with its status, position, duration and the screen
/// after it. Typed text shows as its length. The page is bounded whatever the population:
/// the first failures and the first passing runs are drawn, the others are a table of
/// names and durations.
public enum RunHTMLReport {
  /// Passing runs drawn with their screens; further ones are rows of a table, so a run
  /// of many users stays a page a browser opens.
  public static let passingRunsWithScreens = 50
  /// Failing runs drawn with their screens; further ones are rows of their own table.
  public static let failingRunsDrawn = 50
  /// Rows of each table; the runs past them are counted only, so the page stays under
  /// a few megabytes for a million users.
  public static let listedRunsLimit = 10_000

  public static func html(_ results: [ScriptResult], seconds: Double) -> String {
    var report = Builder()
    for result in results { report.add(result) }
    return report.html(seconds: seconds)
  }

  /// A run not drawn: a row of a table.
  struct Row: Codable {
    var name: String
    var file: String
    var user: String
    var steps: Int
    var durationSeconds: Double
    var headline: String?
  }

  /// The report as runs end: it keeps the runs it draws and rows for the others (up to
  /// `listedRunsLimit`), never every run.
  public struct Builder {
    /// A run as a worker of `--jobs` hands it over: its row, and its drawing when the
    /// worker drew it (a run the report draws is among the first of its worker).
    package struct Entry: Codable {
      package var passed: Bool
      var row: Row
      var drawn: Drawn?
    }

    /// A drawn run, rendered as it is added but for its id, which comes with its place.
    struct Drawn: Codable {
      var html: String
      var steps: Int
    }

    private(set) var drawnFailures: [Drawn] = []
    private(set) var drawnPassing: [Drawn] = []
    private var failedRows: [Row] = []
    private var passedRows: [Row] = []
    private(set) var failed = 0
    private(set) var passed = 0

    public init() {}

    /// Whether the next run may be drawn, so its screens are worth keeping.
    public var drawsNext: Bool {
      drawnFailures.count < failingRunsDrawn || drawnPassing.count < passingRunsWithScreens
    }

    /// Runs and steps held (what the report costs in memory), for tests.
    package var retained: (runs: Int, steps: Int, rows: Int) {
      (
        drawnFailures.count + drawnPassing.count,
        (drawnFailures + drawnPassing).reduce(0) { $0 + $1.steps },
        failedRows.count + passedRows.count
      )
    }

    public mutating func add(_ result: ScriptResult) {
      add(
        passed: result.passed, row: { Self.row(result) },
        drawn: { Drawn(html: RunHTMLReport.run(result), steps: result.steps.count) })
    }

    package mutating func add(_ entry: Entry) {
      // Drawn here but not by its worker cannot happen (see `Entry`); listed then.
      add(passed: entry.passed, row: { entry.row }, drawn: { entry.drawn })
    }

    /// Runs past every list, counted only.
    package mutating func addUnlisted(passed: Int, failed: Int) {
      self.passed += passed
      self.failed += failed
    }

    private mutating func add(passed isPassed: Bool, row: () -> Row, drawn: () -> Drawn?) {
      if isPassed {
        passed += 1
        if drawnPassing.count < passingRunsWithScreens, let drawn = drawn() {
          drawnPassing.append(drawn)
        } else if passedRows.count < listedRunsLimit {
          passedRows.append(row())
        }
      } else {
        failed += 1
        if drawnFailures.count < failingRunsDrawn, let drawn = drawn() {
          drawnFailures.append(drawn)
        } else if failedRows.count < listedRunsLimit {
          failedRows.append(row())
        }
      }
    }

    /// What a worker hands over for `result`, drawn when `draws`.
    package static func entry(_ result: ScriptResult, draws: Bool) -> Entry {
      Entry(
        passed: result.passed, row: row(result),
        drawn: draws ? Drawn(html: RunHTMLReport.run(result), steps: result.steps.count) : nil)
    }

    static func row(_ result: ScriptResult) -> Row {
      Row(
        name: result.name, file: result.file, user: result.user, steps: result.steps.count,
        durationSeconds: result.durationSeconds, headline: result.failure?.headline)
    }

    public func html(seconds: Double) -> String {
      let total = failed + passed
      var body = "<main class=\"wr\">"
      body += "<header><h1>wellflow run</h1>"
      body +=
        "<p class=\"wr-totals\" data-failed=\"\(failed)\" data-passed=\"\(passed)\"><b>\(total)</b> script run\(total == 1 ? "" : "s"): "
      body +=
        "<span class=\"wr-pass\">\(passed) passed</span>, <span class=\"\(failed == 0 ? "wr-pass" : "wr-fail")\">\(failed) failed</span>"
      body += " · \(milliseconds(seconds))</p></header>"
      if failed > 0 {
        body += "<section id=\"failures\"><h2>Failures (\(failed))</h2>"
        for (index, drawn) in drawnFailures.enumerated() {
          body += opening(passed: false, id: "failure-\(index + 1)") + drawn.html
        }
        if failed > drawnFailures.count {
          body +=
            "<p class=\"wr-note\">The first \(drawnFailures.count) failing runs are drawn; the other \(failed - drawnFailures.count) are listed here.</p>"
          body += table(
            failedRows, id: "failures-listed", unlisted: failed - drawnFailures.count - failedRows.count)
        }
        body += "</section>"
      }
      if passed > 0 {
        body += "<section id=\"passed\"><h2>Passed (\(passed))</h2>"
        for (index, drawn) in drawnPassing.enumerated() {
          body += opening(passed: true, id: "run-\(index + 1)") + drawn.html
        }
        if passed > drawnPassing.count {
          body +=
            "<p class=\"wr-note\">The first \(drawnPassing.count) passing runs are drawn; the other \(passed - drawnPassing.count) are listed here.</p>"
          body += table(
            passedRows, id: "passed-listed", unlisted: passed - drawnPassing.count - passedRows.count)
        }
        body += "</section>"
      }
      body += "</main>"
      let title = failed == 0 ? "wellflow run: \(passed) passed" : "wellflow run: \(failed) failed"
      return ScreenHTML.document(title: title, body: body, extraStyle: style)
    }
  }

  /// Runs not drawn, one row each: name, file and user, steps, duration (and for a
  /// failure its message); past `listedRunsLimit` a count.
  private static func table(_ rows: [Row], id: String, unlisted: Int) -> String {
    let e = ScreenHTML.escape
    let failures = rows.contains { $0.headline != nil }
    var html = "<table class=\"wr-table\" id=\"\(id)\"><thead><tr><th>Script</th><th>File (user)</th>"
    html += "<th>Steps</th><th>Duration</th>\(failures ? "<th>Failure</th>" : "")</tr></thead><tbody>"
    for row in rows {
      html +=
        "<tr><td>\(e(row.name))</td><td class=\"wr-file\">\(e(row.file)) (\(e(row.user)))</td><td>\(row.steps)</td><td class=\"wr-duration\">\(milliseconds(row.durationSeconds))</td>"
      if failures { html += "<td>\(e(row.headline ?? ""))</td>" }
      html += "</tr>"
    }
    html += "</tbody></table>"
    if unlisted > 0 {
      html += "<p class=\"wr-note\">\(unlisted) more run\(unlisted == 1 ? "" : "s") not listed.</p>"
    }
    return html
  }

  /// A drawn run's first tag, up to its id.
  private static func opening(passed: Bool, id: String) -> String {
    "<details class=\"wr-run \(passed ? "wr-passed" : "wr-failed")\" id=\"\(id)\""
  }

  /// A drawn run after its id: what `opening` begins.
  private static func run(_ result: ScriptResult, showsScreens: Bool = true) -> String {
    let e = ScreenHTML.escape
    let mark = result.passed ? "✓" : "✗"
    var html = "\(result.passed ? "" : " open")>"
    html +=
      "<summary><span class=\"wr-mark\">\(mark)</span> <b>\(e(result.name))</b> <span class=\"wr-file\">\(e(result.file)) (\(e(result.user)))</span> <span class=\"wr-meta\">\(result.steps.count) steps · \(milliseconds(result.durationSeconds))</span></summary>"
    if let failure = result.failure {
      html += "<div class=\"wr-failure\"><pre class=\"wr-message\">\(e(failure.headline))</pre>"
      let failingStep = result.steps.last { $0.status == .failed }
      if showsScreens, let step = failingStep {
        html += "<div class=\"wr-failure-screen\"><p>The screen when it failed:</p>"
        html += ScreenHTML.phone(step.screenAfter, options: .report) + "</div>"
      } else {
        html += "<pre class=\"wr-screen-text\">\(e(failure.currentScreen))</pre>"
      }
      html += "</div>"
    }
    html += "<ol class=\"wr-steps\">"
    for step in result.steps {
      let status = step.status.rawValue
      html += "<li class=\"wr-step wr-\(status)\" style=\"margin-left: \(min(step.depth, 20) * 18)px\">"
      html += "<div class=\"wr-row\"><span class=\"wr-status\">\(status)</span>"
      html += "<code class=\"wr-pos\">\(e(step.position.description))</code>"
      html +=
        "<span class=\"wr-summary\">\(step.label.map { "<i>\(e($0))</i>: " } ?? "")\(e(step.summary))</span>"
      html += "<span class=\"wr-to\">→ \(e(step.screen))</span>"
      html += "<span class=\"wr-duration\">\(milliseconds(step.durationSeconds))</span></div>"
      if let message = step.message {
        html += "<div class=\"wr-step-message\">\(e(message))</div>"
      }
      if showsScreens {
        html +=
          "<details class=\"wr-shot\"\(step.status == .failed ? " open" : "")><summary>screen after</summary><div class=\"wf-small\">\(ScreenHTML.phone(step.screenAfter, options: .report))</div></details>"
      }
      html += "</li>"
    }
    return html + "</ol></details>"
  }

  static func milliseconds(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds >= 0 else { return "–" }
    return TranscriptFormatter.milliseconds(seconds)
  }

  static let style = """
    .wr { max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; }
    .wr h1 { margin-bottom: 4px; }
    .wr-totals { font-size: 18px; }
    .wr-pass { color: #15803d; font-weight: 600; }
    .wr-fail { color: #b91c1c; font-weight: 600; }
    .wr-run { background: #fff; border: 1px solid #dcdfe8; border-radius: 10px; margin: 10px 0; padding: 8px 14px; }
    .wr-failed { border-left: 6px solid #b91c1c; }
    .wr-passed { border-left: 6px solid #15803d; }
    .wr-run > summary { cursor: pointer; font-size: 16px; padding: 4px 0; }
    .wr-failed .wr-mark { color: #b91c1c; }
    .wr-passed .wr-mark { color: #15803d; }
    .wr-file, .wr-meta { color: #6b7080; font-size: 13px; }
    .wr-failure { display: flex; flex-direction: column; gap: 8px; margin: 8px 0 12px; }
    .wr-message { background: #fef2f2; color: #7f1d1d; border: 1px solid #fecaca; border-radius: 8px;
      padding: 10px; white-space: pre-wrap; font-size: 14px; margin: 0; }
    .wr-screen-text { background: #f6f7fb; padding: 8px; border-radius: 6px; font-size: 12px; }
    .wr-steps { list-style: none; padding: 0; margin: 0; }
    .wr-step { border-top: 1px solid #eef0f5; padding: 4px 0; }
    .wr-row { display: flex; gap: 10px; align-items: baseline; font-size: 13px; flex-wrap: wrap; }
    .wr-status { display: inline-block; width: 58px; font-weight: 600; text-transform: uppercase; font-size: 11px; }
    .wr-passed .wr-status, .wr-step.wr-passed .wr-status { color: #15803d; }
    .wr-step.wr-failed .wr-status { color: #b91c1c; }
    .wr-step.wr-warning .wr-status { color: #b45309; }
    .wr-step.wr-failed { background: #fef2f2; }
    .wr-pos { color: #4b5060; }
    .wr-summary { flex: 1; }
    .wr-to { color: #6b7080; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
    .wr-duration { color: #6b7080; width: 70px; text-align: right; font-variant-numeric: tabular-nums; }
    .wr-step-message { font-size: 12px; color: #7f1d1d; margin: 2px 0 2px 68px; }
    .wr-shot > summary { font-size: 12px; color: #4f46e5; cursor: pointer; margin-left: 68px; }
    .wr-shot .wf-small { margin: 6px 0 0 68px; }
    .wr-note { color: #6b7080; }
    .wr-table { border-collapse: collapse; width: 100%; font-size: 13px; background: #fff; }
    .wr-table th, .wr-table td { border-top: 1px solid #eef0f5; padding: 3px 8px; text-align: left; }
    """
}
