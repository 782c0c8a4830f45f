import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore
import WellflowScript

@MainActor
private func report(_ configuration: ReportConfiguration) -> RunOutcome {
  let out = Locked<[String]>([])
  let err = Locked<[String]>([])
  let code = ReportCommand.execute(
    configuration,
    console: Console(
      out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
  return RunOutcome(code: code, out: out.current, err: err.current)
}

/// Events for one user of the check-in experiment: exposure, a run with `ending`, and
/// optionally an event the next day.
private func user(
  _ id: String, _ variation: String, _ variationId: Int, ending: String?, reason: String = "user",
  nextDay: Bool = false, source: Bool = false
) -> [String] {
  let tag = source ? #","source":"script""# : ""
  func line(_ event: String, _ extra: String = "", day: Int = 2) -> String {
    #"{"ts":"2026-03-0\#(day)T20:00:00Z","user":"\#(id)","event":"\#(event)","flow":"checkin"\#(extra)\#(tag)}"#
  }
  var lines = [
    line(
      "experiment_viewed",
      #","variant":"\#(variation)","experiment":"checkin-length","variation":"\#(variation)","variation_id":\#(variationId)"#
    ),
    line("flow_started"), line("screen_viewed", #","screen":"checkin.sensing""#),
  ]
  if ending == "flow_completed" { lines.append(line("screen_viewed", #","screen":"checkin.acting""#)) }
  if let ending {
    lines.append(line(ending, ending == "flow_cancelled" ? #","reason":"\#(reason)""# : ""))
  }
  if nextDay { lines.append(line("app_opened", day: 3)) }
  return lines
}

@MainActor
@Suite("wellflow report: decisions")
struct ReportDecisionTests {
  let workspace = Workspace()

  var experimentFile: String {
    workspace.write(
      "checkin.yaml",
      """
      experiments:
        - key: checkin-length
          flow: checkin
          variations: [full, quick]
          metrics:
            - {name: reached acting, event: screen_viewed, screen: checkin.acting}
            - returned_next_day
      """)
  }

  @Test func metricsTerminatedRunsAndSimulatedData() throws {
    // full: 4 users, 1 completes, 1 cancels, 2 terminated; quick: 4 users, 3 complete.
    var lines: [String] = []
    lines += user("f1", "full", 0, ending: "flow_completed", nextDay: true, source: true)
    lines += user("f2", "full", 0, ending: "flow_cancelled", source: true)
    lines += user("f3", "full", 0, ending: "flow_cancelled", reason: "terminated", source: true)
    lines += user("f4", "full", 0, ending: "flow_cancelled", reason: "terminated", source: true)
    for index in 1...3 {
      lines += user("q\(index)", "quick", 1, ending: "flow_completed", nextDay: index == 1, source: true)
    }
    lines += user("q4", "quick", 1, ending: nil, source: true)
    let events = workspace.write("e.ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = ReportConfiguration(eventsPath: events, experiment: "checkin-length")
    configuration.experimentsPath = experimentFile
    configuration.format = .json
    let outcome = report(configuration)
    #expect(outcome.code == 0, "\(outcome.errText)")
    let decoded = try JSONDecoder().decode(ExperimentReport.self, from: Data(outcome.outText.utf8))
    #expect(decoded.simulated)
    #expect(decoded.trustworthy)
    #expect(decoded.metricNames == ["reached acting", "returned_next_day"])
    #expect(decoded.variations.map(\.cancelled) == [1, 0])
    #expect(decoded.variations.map(\.terminated) == [2, 0])
    #expect(decoded.variations.map(\.abandoned) == [0, 1])
    #expect(decoded.variations.map { $0.metrics.map(\.conversions) } == [[1, 1], [3, 1]])
    #expect(decoded.variations.map { $0.metrics.map(\.users) } == [[4, 4], [4, 4]])
    let quick = decoded.variations[1]
    // Beta(1+3, 1+1) against Beta(1+1, 1+3): scipy quad of the posteriors gives 0.896825396825397.
    #expect(abs((quick.metrics[0].chanceToBeatControl ?? 0) - 0.896825396825397) < 1e-9)
    #expect(decoded.sampleRatio?.observed == [4, 4])
    #expect(decoded.sampleRatio?.pValue == 1)

    configuration.format = .text
    let text = report(configuration).outText
    #expect(text.hasPrefix("simulated: these events come from scripted runs (wellflow run), not from people"))
    #expect(text.contains("2 run(s) were ended by the host (terminated), not by people cancelling."))

    configuration.format = .csv
    let csv = report(configuration).out
    #expect(csv.count == 1)
    let rows = (csv.first ?? "").split(separator: "\n").map(String.init)
    #expect(
      rows.first
        == "metric,variation,users,conversions,rate,ci_lower,ci_upper,p_value_holm,chance_to_beat_control,srm_p_value,trustworthy,simulated,"
        + "difference,difference_lower,difference_upper,relative,relative_lower,relative_upper"
    )
    #expect(rows.count == 7)
    #expect(rows.contains { $0.hasPrefix("reached acting,quick,4,3,0.75,") })
  }

  /// Names come from an events file anyone may write: in the CSV a formula is
  /// neutralized and a lone carriage return quoted, as in `wellflow export`.
  @Test func theCSVNeutralizesFormulasAndQuotesCarriageReturnsInNames() throws {
    let hostile = #"=HYPERLINK(\"http://x\",\"y\")"#
    var lines: [String] = []
    for index in 1...3 { lines += user("f\(index)", "full", 0, ending: "flow_completed") }
    for index in 1...3 { lines += user("q\(index)", hostile, 1, ending: "flow_completed") }
    lines += user("r1", "a\\rb", 2, ending: nil)
    let events = try EventsFile.read(path: workspace.write("h.ndjson", lines.joined(separator: "\n") + "\n"))
    let csv = try ExperimentReport(
      experiment: "checkin-length", events: events, flow: "checkin", variationOrder: [], weights: nil
    ).renderCSV()
    #expect(csv.contains("\ncompletion,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",3,3,"), "\(csv)")
    #expect(csv.contains("\ncompletion,\"a\rb\",1,0,"), "\(csv)")
  }

  /// A variation weighted 0 is left out of the test; anyone in it is a mismatch by itself.
  @Test func aZeroWeightVariationIsNoMismatchUntilSomeoneLandsInIt() throws {
    var lines: [String] = []
    for index in 1...50 { lines += user("f\(index)", "full", 0, ending: "flow_completed") }
    for index in 1...50 { lines += user("q\(index)", "quick", 1, ending: "flow_completed") }
    let events = try EventsFile.read(path: workspace.write("e.ndjson", lines.joined(separator: "\n") + "\n"))
    let fair = try ExperimentReport(
      experiment: "checkin-length", events: events, flow: "checkin",
      variationOrder: ["full", "quick", "mini"],
      weights: [0.5, 0.5, 0])
    #expect(fair.sampleRatio?.pValue == 1)
    #expect(fair.trustworthy)
    let strayed = try ExperimentReport(
      experiment: "checkin-length",
      events: events
        + (try EventsFile.read(
          path: workspace.write("m.ndjson", user("m1", "mini", 2, ending: nil).joined(separator: "\n") + "\n")
        )),
      flow: "checkin", variationOrder: ["full", "quick", "mini"], weights: [0.5, 0.5, 0])
    #expect(strayed.sampleRatio?.mismatch == true)
    #expect(!strayed.trustworthy)
  }

  @Test func aSampleRatioMismatchComesFirstAndMarksTheReport() throws {
    var lines: [String] = []
    for index in 1...60 { lines += user("f\(index)", "full", 0, ending: "flow_completed") }
    for index in 1...20 { lines += user("q\(index)", "quick", 1, ending: "flow_completed") }
    let events = workspace.write("e.ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = ReportConfiguration(eventsPath: events, experiment: "checkin-length")
    configuration.experimentsPath = experimentFile
    let outcome = report(configuration)
    #expect(outcome.code == 0)
    // 60/20 against 50/50: chi-square 20, p = scipy.stats.chi2.sf(20, 1) = 7.74e-06.
    #expect(
      outcome.out.first?.hasPrefix(
        "sample ratio mismatch: exposures 60/20 against weights 50%/50%: chi-square 20.00, p 7.7e-06; users did not land in the variations as assigned, so the results below are untrustworthy"
      ) == true, "\(outcome.out.first ?? "")")
    configuration.format = .json
    let decoded = try JSONDecoder().decode(
      ExperimentReport.self, from: Data(report(configuration).outText.utf8))
    #expect(!decoded.trustworthy)
    #expect(abs((decoded.sampleRatio?.pValue ?? 1) - 7.744216431044088e-06) < 1e-15)
  }

  @Test func theHTMLReportShowsTheMismatchFirstAndTheCorrectedFigures() throws {
    var lines: [String] = []
    for index in 1...60 { lines += user("f\(index)", "full", 0, ending: "flow_completed") }
    for index in 1...20 {
      lines += user("q\(index)", "quick", 1, ending: index <= 10 ? "flow_completed" : nil)
    }
    let events = workspace.write("e.ndjson", lines.joined(separator: "\n") + "\n")
    var configuration = ReportConfiguration(eventsPath: events, experiment: "checkin-length")
    configuration.experimentsPath = experimentFile
    configuration.format = .json
    let decoded = try JSONDecoder().decode(
      ExperimentReport.self, from: Data(report(configuration).outText.utf8))
    configuration.format = .html
    let outcome = report(configuration)
    #expect(outcome.code == 0)
    let html = outcome.outText
    let mismatch = try #require(html.range(of: "<p class=\"rp-note\">sample ratio mismatch: exposures 60/20"))
    let firstChart = try #require(html.range(of: "<svg"))
    #expect(mismatch.lowerBound < firstChart.lowerBound)
    #expect(html.contains("<th>terminated</th>") && html.contains("<th>chance to beat control</th>"))
    // The Holm-corrected p-value and the chance to beat control the JSON report gives.
    let quick = try #require(decoded.variations.first { $0.variation == "quick" })
    let p = try #require(quick.completion.pValue)
    #expect(html.contains("<td>\(String(format: "%.4f", p))</td>"))
    let chance = try #require(quick.completion.chanceToBeatControl)
    #expect(html.contains(String(format: "%.1f%%", chance * 100)))
  }

  @Test func metricProblemsArePositioned() throws {
    let path = workspace.write(
      "bad.yaml",
      """
      experiments:
        - key: k
          flow: checkin
          variations: [full, quick]
          metrics:
            - returned_next_week
            - {event: screen_viewed, colour: red}
            - {screen: checkin.acting}
            - {event: flow_completed, flow: chekin}
            - {event: a}
            - {event: a}
      """)
    let failure: ScriptLoadFailure
    switch ExperimentFile.load(path: path, registry: try WellflowApp.makeRegistry()) {
    case .success:
      Issue.record("loaded")
      return
    case .failure(let found): failure = found
    }
    // The app's flows, from its registry.
    let flows = try WellflowApp.makeRegistry().flows.map(\.id).joined(separator: ", ")
    #expect(
      workspace.relative(failure.problems.map(\.description)) == [
        "bad.yaml:6:9: metrics: 'returned_next_week' is not a metric; write returned_next_day or {event: NAME, screen: ID, flow: ID}",
        "bad.yaml:7:32: unknown key 'colour' in metric (keys: name, event, screen, flow, value, guardrail, lowerIsBetter)",
        "bad.yaml:8:9: a metric needs event: (the event name, e.g. screen_viewed)",
        "bad.yaml:9:39: metrics: unknown flow 'chekin' (did you mean 'checkin'?) (flows: \(flows))",
        "bad.yaml:11:9: metrics: 'a' is listed twice (first on line 10)",
      ])
  }
}
