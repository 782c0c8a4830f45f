import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

/// `wellflow report` with mean metrics, guardrails, `sequential:` and `covariate:` from the
/// experiment file (issue 25, items 4 and 5).
@MainActor
@Suite("wellflow report: mean metrics, guardrails, sequential, CUPED")
struct ReportMeanMetricTests {
  let workspace = Workspace()

  private func report(_ events: [String], _ experiments: String, format: ReportConfiguration.Format = .text)
    -> RunOutcome
  {
    let events = workspace.write("e.ndjson", events.joined(separator: "\n") + "\n")
    var configuration = ReportConfiguration(eventsPath: events, experiment: "checkin-length")
    configuration.experimentsPath = workspace.write("x.yaml", experiments)
    configuration.format = format
    let out = Locked<[String]>([])
    let err = Locked<[String]>([])
    let code = ReportCommand.execute(
      configuration,
      console: Console(
        out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
    return RunOutcome(code: code, out: out.current, err: workspace.relative(err.current))
  }

  private func event(_ user: String, _ name: String, _ extra: String = "") -> String {
    #"{"ts":"2026-01-05T09:00:00Z","user":"\#(user)","event":"\#(name)","flow":"checkin"\#(extra)}"#
  }

  /// Twenty users a side; quick's mood scores are 3 lower. Each user saved a mood before
  /// exposure too (CUPED's covariate; the metric counts only what came after).
  private var events: [String] {
    (0..<40).flatMap { index -> [String] in
      let quick = index % 2 == 1
      let user = "u\(index)"
      return [
        event(user, "mood_saved", #","score":\#(index % 4)"#),
        event(
          user, "experiment_viewed",
          #","experiment":"checkin-length","variation":"\#(quick ? "quick" : "full")""#),
        event(user, "mood_saved", #","score":\#((quick ? 2 : 5) + index % 3)"#),
      ]
    }
  }

  private func file(_ metric: String, extra: String = "") -> String {
    """
    experiments:
      - key: checkin-length
        flow: checkin
        variations: [full, quick]\(extra)
        metrics:
          - \(metric)
    """
  }

  @Test func aMeanMetricIsReportedWithItsDifference() throws {
    let outcome = report(events, file("{name: mood score, event: mood_saved, value: score, guardrail: true}"))
    #expect(outcome.code == 0, "\(outcome.err)")
    let text = outcome.outText
    #expect(
      text.hasPrefix("guardrail got worse: quick is worse than full on mood score: -3.05 [-3.59, -2.51]\n"))
    #expect(text.contains("mood score  full          20  mean 6.00  5.60–6.40  control"))

    let json = report(
      events, file("{name: mood score, event: mood_saved, value: score, guardrail: true}"), format: .json)
    let decoded = try JSONDecoder().decode(ExperimentReport.self, from: Data(json.outText.utf8))
    #expect(decoded.variations.map { $0.metrics[0].mean } == [6, 2.95])
    #expect(decoded.variations[1].metrics[0].guardrail == true)
    #expect(decoded.sequential == nil && decoded.cuped == nil)

    let csv = report(events, file("{name: mood score, event: mood_saved, value: score}"), format: .csv)
    #expect(csv.outText.contains("\nmood score,full,20,20,6,"))
  }

  @Test func sequentialAndCupedComeFromTheFile() throws {
    let outcome = report(
      events,
      file(
        "{name: mood score, event: mood_saved, value: score}",
        extra: "\n    sequential: true\n    covariate: {event: mood_saved, value: score}"),
      format: .json)
    #expect(outcome.code == 0, "\(outcome.err)")
    let decoded = try JSONDecoder().decode(ExperimentReport.self, from: Data(outcome.outText.utf8))
    #expect(decoded.sequential == true)
    #expect(
      decoded.cuped
        == CupedSummary(
          covariate: CovariateDefinition(event: "mood_saved", value: "score"), usersWithCovariate: 40))
  }

  @Test func aFieldNoEventHasIsPointedAtInTheFile() {
    let outcome = report(events, file("{name: mood score, event: mood_saved, value: scor}"))
    #expect(outcome.code == 2)
    #expect(
      outcome.err == [
        "x.yaml:6:54: metrics: no mood_saved event in e.ndjson has a field 'scor' (metric 'mood score'); check the field's name"
      ])
    #expect(outcome.out.isEmpty)
  }

  @Test func aValueThatIsNotANumberIsNamedWithItsLine() {
    var events = events
    events[5] = event("u2", "mood_saved", #","score":"high""#)
    let outcome = report(events, file("{name: mood score, event: mood_saved, value: score}"))
    #expect(outcome.code == 2)
    #expect(
      outcome.err == ["error: e.ndjson:6: metric 'mood score': field 'score' must be a number, got 'high'"])
  }

  @Test func badKeysAreRefusedWithTheirPosition() {
    let outcome = report(
      events, file("{event: mood_saved, value: score, guardrail: often}", extra: "\n    sequential: maybe"))
    #expect(outcome.code == 2)
    #expect(
      outcome.err == [
        "x.yaml:5:17: sequential must be true or false, got text 'maybe'",
        "x.yaml:7:54: metrics: guardrail must be true or false, got text 'often'",
      ])
  }

  /// `lowerIsBetter: true`: a difference above 0 is the worse one. With quick as the
  /// control, full's scores are 3.05 higher: a guardrail that got worse, said first, and
  /// full's chance to beat is the chance it is lower.
  @Test func aMetricWhereLowerIsBetterGotWorseWhenItRose() throws {
    let file = """
      experiments:
        - key: checkin-length
          flow: checkin
          variations: [quick, full]
          metrics:
            - {name: effort, event: mood_saved, value: score, guardrail: true, lowerIsBetter: true}
      """
    let outcome = report(events, file)
    #expect(outcome.code == 0, "\(outcome.err)")
    #expect(
      outcome.outText.hasPrefix(
        "guardrail got worse: full is worse than quick on effort: +3.05 [2.51, 3.59]\n"))
    #expect(outcome.outText.contains("\neffort (lower is better)  quick  "))
    let json = report(events, file, format: .json)
    let decoded = try JSONDecoder().decode(ExperimentReport.self, from: Data(json.outText.utf8))
    let full = decoded.variations[1].metrics[0]
    #expect(full.lowerIsBetter == true && full.guardrail == true)
    #expect(try #require(full.chanceToBeatControl) < 0.001)
    #expect(decoded.variations[0].metrics[0].lowerIsBetter == true)
  }

  /// The same metric where it fell: no guardrail is named, and quick's chance to beat is
  /// the chance it is lower.
  @Test func aMetricWhereLowerIsBetterBeatsWhenItFell() throws {
    let outcome = report(
      events, file("{name: effort, event: mood_saved, value: score, guardrail: true, lowerIsBetter: true}"),
      format: .json)
    #expect(outcome.code == 0, "\(outcome.err)")
    let decoded = try JSONDecoder().decode(ExperimentReport.self, from: Data(outcome.outText.utf8))
    #expect(decoded.warnings.allSatisfy { !$0.hasPrefix("guardrail") })
    let quick = decoded.variations[1].metrics[0]
    #expect(try #require(quick.chanceToBeatControl) > 0.999)
  }

  @Test func lowerIsBetterIsTrueOrFalse() {
    let outcome = report(events, file("{event: mood_saved, value: score, lowerIsBetter: yes please}"))
    #expect(outcome.code == 2)
    #expect(
      outcome.err == ["x.yaml:6:58: metrics: lowerIsBetter must be true or false, got text 'yes please'"])
  }

  @Test func aCovariateIsAnEventAndANumericFieldBeforeExposure() {
    let metric = "{name: mood score, event: mood_saved, value: score}"
    let bare = report(events, file(metric, extra: "\n    covariate: prior"))
    #expect(bare.code == 2)
    #expect(
      bare.err == [
        "x.yaml:5:16: covariate must be {event: NAME, value: FIELD} (a numeric field of events before exposure), got text 'prior'"
      ])
    let misspelt = report(events, file(metric, extra: "\n    covariate: {event: mood_saved, valu: score}"))
    #expect(misspelt.code == 2)
    #expect(
      misspelt.err == [
        "x.yaml:5:16: covariate: value is required; covariate must be {event: NAME, value: FIELD} (a numeric field of events before exposure)",
        "x.yaml:5:36: unknown key 'valu' in covariate (did you mean 'value'?) (keys: event, value)",
      ])
    var events = events
    events[0] = event("u0", "mood_saved", #","score":"high""#)
    let notANumber = report(
      events,
      file("{name: done, event: flow_completed}", extra: "\n    covariate: {event: mood_saved, value: score}")
    )
    #expect(notANumber.code == 2)
    #expect(
      notANumber.err == [
        "error: e.ndjson:1: covariate: field 'score' of mood_saved must be a number, got 'high'"
      ])
  }
}
