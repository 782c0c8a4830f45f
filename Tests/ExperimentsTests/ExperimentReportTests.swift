import Experiments
import Foundation
import Testing

// Expected figures were computed independently with python3 + scipy:
// pooled z-test 45/100 vs 60/100 → z 2.1239769762143657, p 0.033672068856345855;
// Wilson 95% (z = norm.ppf(0.975)) 45/100 → [0.3561453797951198, 0.5475539700255787],
// 60/100 → [0.5020025867910618, 0.6905987135675411], 0/10 → [0, 0.2775327998628892],
// 10/10 → [0.7224672001371107, 1]; norm.cdf(1.96) = 0.9750021048517795.
struct StatisticsTests {
  @Test func twoProportionZTestMatchesScipy() throws {
    let test = try #require(
      Statistics.twoProportionTest(controlSuccesses: 45, controlTrials: 100, successes: 60, trials: 100))
    #expect(abs(test.z - 2.1239769762143657) < 1e-9)
    #expect(abs(test.pValue - 0.033672068856345855) < 1e-9)
    #expect(abs(test.difference - 0.15) < 1e-12)
    let reversed = try #require(
      Statistics.twoProportionTest(controlSuccesses: 60, controlTrials: 100, successes: 45, trials: 100))
    #expect(abs(reversed.z + 2.1239769762143657) < 1e-9)
    #expect(abs(reversed.pValue - test.pValue) < 1e-12)
  }

  @Test func zTestIsUndefinedWithoutTrialsOrVariance() {
    #expect(
      Statistics.twoProportionTest(controlSuccesses: 0, controlTrials: 0, successes: 1, trials: 2) == nil)
    #expect(
      Statistics.twoProportionTest(controlSuccesses: 5, controlTrials: 5, successes: 7, trials: 7) == nil)
  }

  @Test(arguments: [
    (45, 100, 0.3561453797951198, 0.5475539700255787),
    (60, 100, 0.5020025867910618, 0.6905987135675411),
    (0, 10, 0.0, 0.2775327998628892),
    (10, 10, 0.7224672001371107, 1.0),
  ])
  func wilsonIntervalMatchesScipy(successes: Int, trials: Int, lower: Double, upper: Double) throws {
    let interval = try #require(Statistics.wilsonInterval(successes: successes, trials: trials))
    #expect(abs(interval.lower - lower) < 1e-9)
    #expect(abs(interval.upper - upper) < 1e-9)
  }

  @Test func wilsonIntervalNeedsTrials() {
    #expect(Statistics.wilsonInterval(successes: 0, trials: 0) == nil)
  }

  @Test func normalCDF() {
    #expect(abs(Statistics.normalCDF(1.96) - 0.9750021048517795) < 1e-12)
    #expect(abs(Statistics.normalCDF(0) - 0.5) < 1e-15)
    #expect(abs(Statistics.normalCDF(-1.96) - (1 - 0.9750021048517795)) < 1e-12)
  }
}

struct ExperimentReportTests {
  /// Records events in order; timestamps are all equal on purpose, since the report
  /// must follow recording order.
  struct Log {
    var events: [ReportEvent] = []
    let ts = Date(timeIntervalSince1970: 1_767_600_000)

    mutating func add(
      _ user: String, _ event: String, flow: String? = "checkin", _ fields: [String: String] = [:]
    ) {
      events.append(ReportEvent(ts: ts, user: user, event: event, flow: flow, fields: fields))
    }

    mutating func expose(_ user: String, _ variation: String) {
      add(user, "experiment_viewed", ["experiment": "checkin-length", "variation": variation])
    }

    mutating func run(_ user: String, screens: [String], ending: String?) {
      add(user, "flow_started")
      for screen in screens { add(user, "screen_viewed", ["screen": screen]) }
      if let ending { add(user, ending) }
    }
  }

  static func screens(_ count: Int) -> [String] {
    (1...count).map { "checkin.step\($0)" }
  }

  /// full: 101 exposed, 100 started, 45 completed, 40 cancelled, 15 abandoned.
  /// quick: 100 exposed and started, 60 completed, 30 cancelled, 10 abandoned.
  static let log: Log = {
    var log = Log()
    // A run before exposure and runs of other flows do not count.
    log.run("f1", screens: ["checkin.pet"], ending: "flow_cancelled")
    for i in 1...101 { log.expose("f\(i)", "full") }
    for i in 1...100 { log.expose("q\(i)", "quick") }
    log.add("f1", "flow_started", flow: "journal")
    log.add("f1", "flow_cancelled", flow: "journal")
    for i in 1...45 { log.run("f\(i)", screens: screens(i <= 23 ? 5 : 9), ending: "flow_completed") }
    for i in 46...85 {
      log.run(
        "f\(i)", screens: ["checkin.sensing"] + (i <= 70 ? ["checkin.naming"] : []), ending: "flow_cancelled")
    }
    // Started again without an ending (a relaunch), then left open when the events end.
    for i in 86...95 { log.run("f\(i)", screens: ["checkin.sensing", "checkin.shaping"], ending: nil) }
    for i in 86...95 { log.run("f\(i)", screens: screens(6), ending: "flow_completed") }
    for i in 96...100 { log.run("f\(i)", screens: ["checkin.shaping"], ending: nil) }
    for i in 1...60 {
      log.run("q\(i)", screens: screens(i <= 30 ? 3 : i < 60 ? 4 : 10), ending: "flow_completed")
    }
    for i in 61...90 { log.run("q\(i)", screens: ["checkin.sensing"], ending: "flow_cancelled") }
    for i in 91...100 { log.run("q\(i)", screens: ["checkin.naming"], ending: nil) }
    // A user who later saw the other variation still counts in the first.
    log.expose("q1", "full")
    return log
  }()

  @Test func funnelPerVariation() throws {
    let report = try ExperimentReport(experiment: "checkin-length", events: Self.log.events)
    #expect(report.flow == "checkin")
    #expect(report.usersInSeveralVariations == 1)
    #expect(report.variations.map(\.variation) == ["full", "quick"])
    let full = report.variations[0]
    let fullCounts = [full.exposed, full.started, full.completed, full.cancelled, full.abandoned]
    #expect(fullCounts == [101, 100, 45, 40, 15])
    #expect(full.completionRate == 0.45)
    #expect(abs((full.completionInterval?.lower ?? 0) - 0.3561453797951198) < 1e-9)
    #expect(full.topExitScreen == ExitScreen(screen: "checkin.naming", users: 25))
    #expect(full.medianStepsToComplete == 5)
    #expect(full.versusControl == nil)

    let quick = report.variations[1]
    let quickCounts = [quick.exposed, quick.started, quick.completed, quick.cancelled, quick.abandoned]
    #expect(quickCounts == [100, 100, 60, 30, 10])
    #expect(quick.topExitScreen == ExitScreen(screen: "checkin.sensing", users: 30))
    #expect(quick.medianStepsToComplete == 3.5)
    let test = try #require(quick.versusControl)
    #expect(abs(test.z - 2.1239769762143657) < 1e-9)
    #expect(abs(test.pValue - 0.033672068856345855) < 1e-9)
  }

  @Test func variationOrderChoosesTheControlAndListsUnseenVariations() throws {
    let report = try ExperimentReport(
      experiment: "checkin-length", events: Self.log.events, variationOrder: ["quick", "full", "mini"])
    #expect(report.variations.map(\.variation) == ["quick", "full", "mini"])
    #expect(report.variations[1].versusControl.map { $0.z < 0 } == true)
    let mini = report.variations[2]
    #expect(mini.exposed == 0 && mini.completionRate == nil && mini.versusControl == nil)
  }

  @Test func unknownExperimentNamesTheOnesSeen() {
    #expect(throws: ReportError.noExposures(experiment: "nope", experimentsSeen: ["checkin-length"])) {
      try ExperimentReport(experiment: "nope", events: Self.log.events)
    }
    let message = ReportError.noExposures(experiment: "nope", experimentsSeen: ["checkin-length"]).description
    #expect(message.contains("nope") && message.contains("checkin-length"))
  }

  @Test func exposuresWithoutAFlowNeedOneGiven() throws {
    let events = [
      ReportEvent(
        ts: Date(timeIntervalSince1970: 0), user: "u", event: "experiment_viewed",
        fields: ["experiment": "e", "variation": "a"])
    ]
    #expect(throws: ReportError.noFlow(experiment: "e")) {
      try ExperimentReport(experiment: "e", events: events)
    }
    #expect(try ExperimentReport(experiment: "e", events: events, flow: "checkin").variations[0].exposed == 1)
  }

  @Test func textTableShowsTheFiguresPerVariation() throws {
    let text = try ExperimentReport(experiment: "checkin-length", events: Self.log.events).renderText()
    let lines = text.split(separator: "\n").map(String.init)
    let full = try #require(lines.first { $0.hasPrefix("full ") })
    let quick = try #require(lines.first { $0.hasPrefix("quick ") && !$0.contains(" on completion") })
    for expected in ["101", "checkin.naming (25)"] {
      #expect(full.contains(expected), "\(expected) in \(full)")
    }
    for expected in ["3.5", "checkin.sensing (30)"] {
      #expect(quick.contains(expected), "\(expected) in \(quick)")
    }
    let completion = try #require(lines.firstIndex { $0.hasPrefix("completion ") })
    let control = lines[completion]
    let variation = lines[completion + 1]
    for expected in ["full", "45.0%", "35.6%–54.8%", "control"] {
      #expect(control.contains(expected), "\(expected) in \(control)")
    }
    // One comparison: Holm leaves the p-value as it is. Chance to beat control: scipy quad of
    // beta(61, 41).pdf · beta(46, 56).cdf over 0…1 = 0.98285 (98.3%).
    // The difference to control with Newcombe's 95% interval (over scipy's Wilson intervals:
    // 1.2…28.0 points), relative 33.3% (1.8…74.6 on the log of the ratio: SciPy's
    // relative_risk(60, 100, 45, 100).confidence_interval(); the delta method's was −2.6…69.2).
    for expected in [
      "quick", "60.0%", "50.2%–69.1%", "+15.0 pp [1.2, 28.0]", "+33.3% [1.8, 74.6]", "0.0337", "98.3%",
    ] {
      #expect(variation.contains(expected), "\(expected) in \(variation)")
    }
    #expect(text.contains("1 user(s) saw more than one variation"))
  }

  @Test func jsonRoundTrips() throws {
    let report = try ExperimentReport(experiment: "checkin-length", events: Self.log.events)
    let data = try JSONEncoder().encode(report)
    #expect(try JSONDecoder().decode(ExperimentReport.self, from: data) == report)
    let json = try #require(String(data: data, encoding: .utf8))
    #expect(json.contains("\"completionRate\":0.45"))
  }

  /// A user's events going back in time start another run (a rerun appended to the file);
  /// equal stamps, as in the log above, stay one run.
  @Test func usersExposedInTwoRunsAreCounted() throws {
    #expect(
      try ExperimentReport(experiment: "checkin-length", events: Self.log.events).usersInSeveralRuns == 0)
    let start = Date(timeIntervalSince1970: 1_767_600_000)
    func event(_ user: String, _ seconds: Double, _ name: String, _ variation: String? = nil) -> ReportEvent {
      ReportEvent(
        ts: start + seconds, user: user, event: name, flow: "checkin",
        fields: variation.map { ["experiment": "checkin-length", "variation": $0] } ?? [:])
    }
    var events: [ReportEvent] = []
    for round in 0..<2 {
      // a is exposed in both runs; b only in the first; c's second run starts later, but
      // its events go back to the run's start.
      events += [event("a", 1, "experiment_viewed", "full"), event("a", 2, "flow_started")]
      events += [event("a", 3, "flow_completed")]
      if round == 0 {
        events += [event("b", 1, "experiment_viewed", "quick"), event("b", 2, "flow_started")]
      }
      if round == 1 { events += [event("b", 1, "flow_started")] }
      events += [
        event("c", Double(round) * 2 + 1, "experiment_viewed", "quick"), event("c", 9, "flow_started"),
      ]
    }
    let report = try ExperimentReport(experiment: "checkin-length", events: events)
    #expect(report.usersInSeveralRuns == 2)
    #expect(report.usersInSeveralVariations == 0)
    #expect(report.variations.map(\.exposed) == [1, 2])
    #expect(
      report.warnings.first?.hasPrefix("several runs: 2 user(s) were exposed in more than one run") == true)
  }

  /// Text formatting is linear: a million-character name (the library prints it whole;
  /// the command clips it) once took ~1 µs a character to pad and trim.
  @Test func aMillionCharacterVariationIsFormattedWhole() throws {
    let long = String(repeating: "v", count: 1_000_000)
    var log = Log()
    log.expose("u1", long)
    log.run("u1", screens: ["checkin.pet"], ending: "flow_completed")
    let text = try ExperimentReport(experiment: "checkin-length", events: log.events).renderText()
    let rows = text.split(separator: "\n").filter { $0.hasPrefix(long) }
    #expect(rows.count == 1)
    #expect(rows.allSatisfy { $0.last != " " })
  }
}
