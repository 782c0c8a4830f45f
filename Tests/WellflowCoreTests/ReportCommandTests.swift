import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

/// What `wellflow report` printed and returned.
@MainActor
private func wellflowReport(_ configuration: ReportConfiguration) -> RunOutcome {
  let out = Locked<[String]>([])
  let err = Locked<[String]>([])
  let code = ReportCommand.execute(
    configuration,
    console: Console(
      out: { text in out.withLock { $0.append(text) } }, err: { text in err.withLock { $0.append(text) } }))
  return RunOutcome(code: code, out: out.current, err: err.current)
}

private func line(_ user: String, _ event: String, _ extra: String = "") -> String {
  #"{"ts":"2026-01-05T09:00:00Z","user":"\#(user)","event":"\#(event)","flow":"onboarding"\#(extra)}"#
}

private func exposure(_ user: String, _ variation: String, _ id: Int) -> String {
  line(
    user, "experiment_viewed",
    #","variant":"\#(variation)","experiment":"onboarding-length","variation":"\#(variation)","variation_id":\#(id)"#
  )
}

private func screen(_ user: String, _ id: String) -> String {
  line(user, "screen_viewed", #","screen":"onboarding.\#(id)""#)
}

/// Brief users listed first, so the control comes first only by `variation_id`:
/// - standard: u1 completes in 4 screens, u2 cancels on features, u3 completes in 4;
/// - brief: u4 completes in 2 screens, u5 stops on skill (abandoned), u6 never starts;
/// - u7 was never exposed and does not count.
private let smallEvents =
  [
    exposure("u4", "brief", 1), line("u4", "flow_started"), screen("u4", "skill"), screen("u4", "finale"),
    line("u4", "flow_completed"),
    exposure("u1", "standard", 0), line("u1", "flow_started"), screen("u1", "welcome"),
    screen("u1", "features"),
    screen("u1", "skill"), screen("u1", "finale"), line("u1", "flow_completed"),
    "",
    exposure("u2", "standard", 0), line("u2", "flow_started"), screen("u2", "welcome"),
    screen("u2", "features"),
    line("u2", "flow_cancelled", #","reason":"user""#),
    exposure("u3", "standard", 0), line("u3", "flow_started"), screen("u3", "welcome"),
    screen("u3", "features"),
    screen("u3", "skill"), screen("u3", "finale"), line("u3", "flow_completed"),
    exposure("u5", "brief", 1), line("u5", "flow_started"), screen("u5", "skill"),
    exposure("u6", "brief", 1),
    line("u7", "flow_started"), line("u7", "flow_cancelled"),
  ].joined(separator: "\n") + "\n"

@MainActor
@Suite("wellflow report")
struct ReportCommandTests {
  let workspace = Workspace()

  @Test func aSmallEventsFileGivesTheHandCheckedFunnel() throws {
    let path = workspace.write("e.ndjson", smallEvents)
    let outcome = wellflowReport(ReportConfiguration(eventsPath: path, experiment: "onboarding-length"))
    #expect(outcome.code == 0)
    #expect(outcome.err.isEmpty)
    // standard 2/3 = 66.7%, Wilson 20.8%–93.9%; brief 1/2 = 50%, Wilson 9.5%–90.5%;
    // pooled 3/5: z = (0.5 − 0.667) / √(0.24 · (1/3 + 1/2)) = −0.37, p = 0.7094 (one
    // comparison: Holm leaves it); chance to beat control: scipy quad of beta(2, 2).pdf ·
    // beta(3, 2).cdf over 0…1 = 0.3714.
    // The difference: −1/6 with Newcombe's interval (−65.5…44.6 points over the Wilson
    // intervals above; the Wald interval was −104.1…70.8), relative on the log of the
    // ratio: SciPy's relative_risk(1, 2, 2, 3).confidence_interval() − 1 = −84.9…271.6%
    // (the delta method's went past −100%: −145.0…95.0).
    #expect(
      outcome.out == [
        """
        brief vs standard on completion: no clear difference, -16.7 pp [-65.5, 44.6]

        Experiment onboarding-length, flow onboarding: completion = completed / started (each user's first run after exposure)

        variation  exposed  started  completed  cancelled  terminated  abandoned  median steps  top exit screen
        standard         3        3          2          1           0          0             4  onboarding.features (1)
        brief            3        2          1          0           0          1             2  onboarding.skill (1)

                    variation  users   rate  95% CI       vs control [95% CI]     relative [95% CI]      p (Holm)  chance to beat
        completion  standard       3  66.7%  20.8%–93.9%  control
                    brief          2  50.0%  9.5%–90.5%   -16.7 pp [-65.5, 44.6]  -25.0% [-84.9, 271.6]  0.7094    37.1%

        sample ratio: exposures 3/3 against equal weights (no experiment file given) 50%/50%: chi-square 0.00, p 1.0000

        """
      ])
  }

  /// Both variations complete every run: the relative difference has no interval (not a
  /// collapsed +0.0% [0.0, 0.0]) and says why, and the chance to beat is 50% (not the 40%
  /// Beta(1, 1) gives 1 user against 2), in text, JSON and HTML.
  @Test func tiedRatesSayWhyThereIsNoRelativeDifference() throws {
    let tied =
      [
        exposure("u1", "standard", 0), line("u1", "flow_started"), line("u1", "flow_completed"),
        exposure("u2", "standard", 0), line("u2", "flow_started"), line("u2", "flow_completed"),
        exposure("u3", "brief", 1), line("u3", "flow_started"), line("u3", "flow_completed"),
      ].joined(separator: "\n") + "\n"
    let path = workspace.write("tied.ndjson", tied)
    let reason = "n/a (both are at 100%: nothing varies to estimate a ratio from)"
    let text = wellflowReport(ReportConfiguration(eventsPath: path, experiment: "onboarding-length"))
    #expect(text.code == 0)
    let row = try #require(
      text.outText.split(separator: "\n").first { $0.contains("  brief  ") && $0.contains("pp") })
    #expect(row.hasSuffix("\(reason)  n/a       50.0%"), "\(row)")
    var configuration = ReportConfiguration(eventsPath: path, experiment: "onboarding-length")
    configuration.format = .json
    let json = try JSONDecoder().decode(
      ExperimentReport.self, from: Data(wellflowReport(configuration).outText.utf8))
    let brief = json.variations[1].completion
    #expect(brief.chanceToBeatControl == 0.5)
    #expect(brief.difference?.relative == nil)
    #expect(
      brief.difference?.relativeNotApplicable == "both are at 100%: nothing varies to estimate a ratio from")
    configuration.format = .html
    let html = wellflowReport(configuration).outText
    // The cell says n/a with a note under the table, not the reason inside the cell.
    #expect(html.contains("<sup>1</sup> n/a: both are at 100%: nothing varies to estimate a ratio from</p>"))
    #expect(!html.contains("<td>\(reason)</td>"))
    #expect(html.contains("\">n/a<sup>1</sup></td>"))
    #expect(html.contains("50.0%"))
  }

  @Test func jsonCarriesTheSameNumbers() throws {
    let path = workspace.write("e.ndjson", smallEvents)
    var configuration = ReportConfiguration(eventsPath: path, experiment: "onboarding-length")
    configuration.format = .json
    let outcome = wellflowReport(configuration)
    #expect(outcome.code == 0)
    let report = try JSONDecoder().decode(ExperimentReport.self, from: Data(outcome.outText.utf8))
    #expect(report.variations.map(\.variation) == ["standard", "brief"])
    #expect(report.variations.map(\.exposed) == [3, 3])
    #expect(report.variations.map(\.started) == [3, 2])
    #expect(report.variations.map(\.completed) == [2, 1])
    #expect(report.variations.map(\.cancelled) == [1, 0])
    #expect(report.variations.map(\.abandoned) == [0, 1])
    #expect(report.variations.map(\.medianStepsToComplete) == [4, 2])
    #expect(
      report.variations.map { $0.topExitScreen?.screen } == ["onboarding.features", "onboarding.skill"])
    let test = try #require(report.variations[1].versusControl)
    #expect(abs(test.pValue - 0.709_388) < 1e-5)
    #expect(abs(test.z + 0.372_678) < 1e-5)
  }

  @Test func theExperimentFileSetsTheControl() throws {
    let path = workspace.write("e.ndjson", smallEvents)
    let experiments = workspace.write(
      "x.yaml",
      """
      variants: {onboarding: {brief: {steps: [skill, finale]}}}
      experiments:
        - {key: onboarding-length, flow: onboarding, variations: [brief, standard]}
      """)
    var configuration = ReportConfiguration(eventsPath: path, experiment: "onboarding-length")
    configuration.experimentsPath = experiments
    configuration.format = .json
    let outcome = wellflowReport(configuration)
    let report = try JSONDecoder().decode(ExperimentReport.self, from: Data(outcome.outText.utf8))
    #expect(report.variations.map(\.variation) == ["brief", "standard"])
    #expect(report.variations[0].versusControl == nil)
  }

  @Test func aMalformedLineIsNamedWithItsLine() throws {
    let bad = workspace.write(
      "bad.ndjson",
      [exposure("u1", "standard", 0), "", "{not json", line("u1", "flow_started")].joined(separator: "\n"))
    let outcome = wellflowReport(ReportConfiguration(eventsPath: bad, experiment: "onboarding-length"))
    #expect(outcome.code == 2)
    #expect(workspace.relative(outcome.err) == ["error: bad.ndjson:3: not a JSON object: {not json"])
    #expect(outcome.out.isEmpty)

    let cases = [
      (#"{"ts":"2026-01-05T09:00:00Z","event":"flow_started"}"#, "the event has no 'user'"),
      (
        #"{"ts":"yesterday","user":"u","event":"flow_started"}"#,
        "'ts' must be an ISO 8601 date-time, got 'yesterday'"
      ),
      (#"{"ts":"2026-01-05T09:00:00Z","user":7,"event":"flow_started"}"#, "'user' must be text"),
      (#"[1, 2]"#, "not a JSON object: [1, 2]"),
    ]
    for (text, message) in cases {
      let path = workspace.write("case.ndjson", exposure("u1", "standard", 0) + "\n" + text + "\n")
      let outcome = wellflowReport(ReportConfiguration(eventsPath: path, experiment: "onboarding-length"))
      #expect(workspace.relative(outcome.err) == ["error: case.ndjson:2: \(message)"])
    }
  }

  @Test func anUnknownExperimentNamesTheOnesSeen() throws {
    let path = workspace.write("e.ndjson", smallEvents)
    let outcome = wellflowReport(ReportConfiguration(eventsPath: path, experiment: "onboarding-lenght"))
    #expect(outcome.code == 2)
    #expect(
      outcome.err == [
        "error: no experiment_viewed events for experiment onboarding-lenght; check the key (experiments seen: onboarding-length)"
      ])
  }

  /// The example the README shows: a run with the experiment file, then its report.
  @Test func theExampleRunsForManyUsersAndReports() async throws {
    let events = workspace.path("events.ndjson")
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let run = await wellflowRun([
      root.appendingPathComponent("Apps/Wellflow/Scripts/experiment-onboarding.yaml").path
    ]) {
      $0.experimentsPath =
        root.appendingPathComponent("Apps/Wellflow/Experiments/onboarding-length.yaml").path
      $0.users = 40
      $0.eventsPath = events
      $0.format = .json
    }
    #expect(run.code == 0, "\(run.errText)")
    var configuration = ReportConfiguration(eventsPath: events, experiment: "onboarding-length")
    configuration.format = .json
    let outcome = wellflowReport(configuration)
    let report = try JSONDecoder().decode(ExperimentReport.self, from: Data(outcome.outText.utf8))
    #expect(report.variations.map(\.variation) == ["standard", "brief"])
    #expect(report.variations.map(\.exposed).reduce(0, +) == 40)
    #expect(report.variations.allSatisfy { $0.exposed > 0 && $0.completed == $0.exposed })
    #expect(report.variations.map(\.medianStepsToComplete) == [4, 2])
  }

  /// The same population run twice into one file with --append: every exposed user is in
  /// two runs, which the report says first (text) and counts (JSON). Started anew, none is.
  @Test func aUserInTwoRunsOfTheExperimentIsWarnedAbout() async throws {
    let events = workspace.path("events.ndjson")
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    func run(append: Bool) async {
      let outcome = await wellflowRun([
        root.appendingPathComponent("Apps/Wellflow/Scripts/experiment-onboarding.yaml").path
      ]) {
        $0.experimentsPath =
          root.appendingPathComponent("Apps/Wellflow/Experiments/onboarding-length.yaml").path
        $0.users = 6
        $0.eventsPath = events
        $0.appendEvents = append
        $0.quiet = true
      }
      #expect(outcome.code == 0, "\(outcome.errText)")
    }
    func report(_ format: ReportConfiguration.Format) -> RunOutcome {
      var configuration = ReportConfiguration(eventsPath: events, experiment: "onboarding-length")
      configuration.format = format
      return wellflowReport(configuration)
    }
    await run(append: false)
    await run(append: true)
    let text = report(.text)
    #expect(text.code == 0)
    #expect(
      text.outText.hasPrefix(
        "several runs: 6 user(s) were exposed in more than one run (their events start over in time, as when "
          + "runs are added with --append), so two populations are mixed; each user counts in their first run. "
          + "Write one run per file (--events without --append)\n\n"))
    let twice = try JSONDecoder().decode(ExperimentReport.self, from: Data(report(.json).outText.utf8))
    #expect(twice.usersInSeveralRuns == 6)
    #expect(twice.variations.map(\.exposed).reduce(0, +) == 6)

    await run(append: false)
    let once = try JSONDecoder().decode(ExperimentReport.self, from: Data(report(.json).outText.utf8))
    #expect(once.usersInSeveralRuns == 0)
    #expect(!report(.text).outText.contains("several runs"))
  }

  /// Names in an events file are anything: the text report escapes control characters
  /// (a screen clear, a window title) and clips a long name; JSON keeps them exact. A
  /// million-character name took 11.6 s and 10 MB of output.
  @Test func namesFromTheEventsFileAreEscapedAndClippedInText() throws {
    let long = String(repeating: "v", count: 1_000_000)
    let events = [
      exposure("u1", #"\u001b[2Jcalm"#, 0), line("u1", "flow_started"),
      screen("u1", #"\u001b]0;owned\u0007"#), line("u1", "flow_cancelled", #","reason":"user""#),
      exposure("u2", long, 1), line("u2", "flow_started"), line("u2", "flow_completed"),
    ].joined(separator: "\n")
    let path = workspace.write("e.ndjson", events)
    let text = wellflowReport(ReportConfiguration(eventsPath: path, experiment: "onboarding-length"))
    #expect(text.code == 0)
    #expect(!text.outText.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    #expect(text.outText.contains("\\u{1B}[2Jcalm"))
    #expect(text.outText.contains("onboarding.\\u{1B}]0;owned\\u{7} (1)"))
    #expect(text.outText.contains(String(repeating: "v", count: 63) + "…"))
    #expect(text.outText.utf8.count < 5_000)

    var configuration = ReportConfiguration(eventsPath: path, experiment: "onboarding-length")
    configuration.format = .json
    let json = wellflowReport(configuration)
    let report = try JSONDecoder().decode(ExperimentReport.self, from: Data(json.outText.utf8))
    #expect(report.variations.map(\.variation) == ["\u{1B}[2Jcalm", long])
    #expect(report.variations[0].topExitScreen?.screen == "onboarding.\u{1B}]0;owned\u{7}")
  }

  @Test func problemsQuoteTheEventsFileEscaped() throws {
    let badStamp = workspace.write("stamp.ndjson", #"{"ts":"\u001b[2J","user":"u","event":"e"}"# + "\n")
    #expect(
      wellflowReport(ReportConfiguration(eventsPath: badStamp, experiment: "x")).err == [
        "error: \(badStamp):1: 'ts' must be an ISO 8601 date-time, got '\\u{1B}[2J'"
      ])
    let seen = workspace.write(
      "seen.ndjson",
      exposure("u1", "a", 0).replacingOccurrences(
        of: "onboarding-length", with: #"x\u001b[2J"#) + "\n")
    #expect(
      wellflowReport(ReportConfiguration(eventsPath: seen, experiment: "x")).err == [
        "error: no experiment_viewed events for experiment x; check the key (experiments seen: x\\u{1B}[2J)"
      ])
  }
}
