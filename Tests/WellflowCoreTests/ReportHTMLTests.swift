import FlowHTML
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

@MainActor
@Suite("wellflow report --html")
struct ReportHTMLTests {
  let workspace = Workspace()

  private func event(_ user: String, _ name: String, _ extra: String = "") -> String {
    #"{"ts":"2026-01-05T09:00:00Z","user":"\#(user)","event":"\#(name)","flow":"checkin"\#(extra)}"#
  }

  private func exposure(_ user: String, _ variation: String, _ id: Int) -> String {
    event(
      user, "experiment_viewed",
      #","variant":"\#(variation)","experiment":"checkin-length","variation":"\#(variation)","variation_id":\#(id)"#
    )
  }

  @Test func eachVariationHasAFunnelAndTheCompletionIntervalsAreDrawn() throws {
    // full: 2 exposed, 2 started, 1 completed; quick: 2 exposed, 1 started, 1 completed.
    let lines = [
      exposure("a", "full", 0), event("a", "flow_started"), event("a", "flow_completed"),
      exposure("b", "full", 0), event("b", "flow_started"),
      event("b", "flow_cancelled", #","reason":"user""#),
      exposure("c", "quick", 1), event("c", "flow_started"), event("c", "flow_completed"),
      exposure("d", "quick", 1),
    ]
    let events = workspace.write("e.ndjson", lines.joined(separator: "\n") + "\n")
    let html = workspace.path("report.html")
    var configuration = ReportConfiguration(eventsPath: events, experiment: "checkin-length")
    configuration.htmlPath = html
    let code = ReportCommand.execute(configuration, console: Console(out: { _ in }, err: { _ in }))
    #expect(code == 0)
    let page = try String(contentsOfFile: html, encoding: .utf8)
    #expect(page.contains("<h1>Experiment checkin-length</h1>"))
    #expect(page.contains("<div class=\"rp-funnel\" data-variation=\"full\">"))
    #expect(page.contains("<div class=\"rp-funnel\" data-variation=\"quick\">"))
    #expect(page.contains("aria-label=\"full funnel\""))
    // completed of full: 1 of 2 exposed.
    #expect(page.contains(">1 (50.0%)</text>"))
    #expect(page.contains("aria-label=\"completion rate with 95% interval\""))
    #expect(page.components(separatedBy: "class=\"wf-whisker\"").count == 3)
    #expect(page.contains("<td>full</td><td>2</td><td>2</td><td>1</td><td>1</td><td>0</td>"))
    #expect(page.contains("<td>50.0%</td>"))
    #expect(!page.contains("http://") && !page.contains("https://"))
  }

  /// A variation name from the events file is clipped as in the text report: a
  /// 100,000-character one does not make a page of megabytes.
  @Test func longNamesAreClippedAndControlCharactersEscaped() throws {
    let long = String(repeating: "v", count: 100_000)
    let lines = [
      exposure("a", "full", 0), event("a", "flow_started"), exposure("b", long, 1),
      event("b", "flow_started"),
      exposure("c", "x\\u001b]0;title\\u0007", 2),
    ]
    let events = workspace.write("long.ndjson", lines.joined(separator: "\n") + "\n")
    let html = workspace.path("long.html")
    var configuration = ReportConfiguration(eventsPath: events, experiment: "checkin-length")
    configuration.htmlPath = html
    #expect(ReportCommand.execute(configuration, console: Console(out: { _ in }, err: { _ in })) == 0)
    let page = try String(contentsOfFile: html, encoding: .utf8)
    #expect(page.utf8.count < 100_000, "\(page.utf8.count) bytes")
    #expect(page.contains("<td>" + String(repeating: "v", count: 63) + "…</td>"))
    #expect(page.contains("<td>x\\u{1B}]0;title\\u{7}</td>"))
  }

  /// The page shows what the text shows (issue 25, item 3): the verdicts and every cell of
  /// the rates table.
  @Test func thePageShowsTheVerdictsAndTheRatesTable() throws {
    var lines: [String] = []
    for index in 0..<40 {
      lines += [exposure("f\(index)", "full", 0), event("f\(index)", "flow_started")]
      if index < 10 { lines.append(event("f\(index)", "flow_completed")) }
      lines += [exposure("q\(index)", "quick", 1), event("q\(index)", "flow_started")]
      if index < 35 { lines.append(event("q\(index)", "flow_completed")) }
    }
    let events = workspace.write("decide.ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = ReportConfiguration(eventsPath: events, experiment: "checkin-length")
    let text = Locked<[String]>([])
    _ = ReportCommand.execute(
      configuration, console: Console(out: { t in text.withLock { $0.append(t) } }, err: { _ in }))
    configuration.format = .html
    let page = Locked<[String]>([])
    #expect(
      ReportCommand.execute(
        configuration, console: Console(out: { t in page.withLock { $0.append(t) } }, err: { _ in }))
        == 0)
    let html = page.current.joined()
    #expect(text.current.joined().contains("quick beats full on completion: +62.5 pp [42.1, 75.4]"))
    #expect(html.contains("<p class=\"rp-note\">quick beats full on completion: +62.5 pp [42.1, 75.4]</p>"))
    for cell in [
      "vs control [95% CI]", "relative [95% CI]", "+62.5 pp [42.1, 75.4]", "&lt; 0.001", "control",
    ] {
      #expect(html.contains("<td>\(cell)</td>") || html.contains("<th>\(cell)</th>"), "\(cell)")
    }
  }
}
