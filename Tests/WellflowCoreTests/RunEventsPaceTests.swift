import Experiments
import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

/// `wellflow run --events`: the stamps of one run's events, end to end through the runner.
@MainActor
@Suite("wellflow run --events: stamps at a person's pace")
struct RunEventsPaceTests {
  let workspace = Workspace()

  static let stampFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

  struct Event {
    var ts: Date
    var stamp: String
    var user: String
    var event: String
    var object: [String: Any]
  }

  func events(_ path: String) throws -> [Event] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let stamp = try #require(object["ts"] as? String)
      return Event(
        ts: try Date(stamp, strategy: Self.stampFormat), stamp: stamp,
        user: try #require(object["user"] as? String),
        event: try #require(object["event"] as? String), object: object)
    }
  }

  @Test func eventsOfARunAreInOrderAPersonsPaceApartAndAdvanceStillMovesADay() async throws {
    let path = workspace.write(
      "day.yaml",
      """
      name: two days
      user: alice
      start: 2026-03-02T08:00
      steps:
        - launch
        - tap: continue
        - tap: continue
        - select: {skill: beginner}
        - tap: continue
        - tap: continue
        - expect: {flow: onboarding, outcome: completed}
        - advance: 1d
        - relaunch
        - expect: {screen: checkin.pet}
      """)
    let file = workspace.path("events.ndjson")
    let outcome = await wellflowRun([path]) { $0.eventsPath = file }
    #expect(outcome.code == 0, "\(outcome.errText)")
    let all = try events(file)
    try #require(all.count > 10)
    // Stamps to the millisecond, each after the one before.
    for event in all { #expect(event.stamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil) }
    for (before, after) in zip(all, all.dropFirst()) {
      #expect(before.ts < after.ts, "\(before.stamp) \(before.event) then \(after.stamp) \(after.event)")
    }
    // Opening the app takes a person 1–3 s after the script's start.
    let start = try Date("2026-03-02T08:00:00.000Z", strategy: Self.stampFormat)
    let first = try #require(all.first)
    #expect(first.ts.timeIntervalSince(start) >= 1 && first.ts.timeIntervalSince(start) <= 3)
    // A tap and the screen it leads to: one step, the app answering at once (1 ms).
    let tap = try #require(
      all.firstIndex { $0.event == "action" && $0.object["action"] as? String == "tap" })
    #expect(all[tap + 1].event == "screen_viewed")
    #expect(abs(all[tap + 1].ts.timeIntervalSince(all[tap].ts) - 0.001) < 1e-6)
    // Between screens a person reads and decides: 2–12 s before each tap or select.
    let actions = all.filter { $0.event == "action" }
    for (before, after) in zip(actions, actions.dropFirst()) where before.ts < start.addingTimeInterval(3600)
    {
      let gap = after.ts.timeIntervalSince(before.ts)
      if after.ts < start.addingTimeInterval(3600) { #expect(gap >= 2 && gap <= 12.1, "gap \(gap)") }
    }
    // `advance: 1d` moves the stamps by one day, plus the 1–3 s the relaunch takes.
    let nextDay = try #require(all.firstIndex { $0.ts > start.addingTimeInterval(12 * 3600) })
    let gap = all[nextDay].ts.timeIntervalSince(all[nextDay - 1].ts)
    #expect(gap >= 86_400 + 1 && gap <= 86_400 + 3.01, "gap \(gap)")
    #expect(all[nextDay...].allSatisfy { $0.stamp.hasPrefix("2026-03-03T08:0") })
  }

  @Test func theSameSeedStampsTheSameAndReturnedNextDayStillCounts() async throws {
    let experiments = workspace.write(
      "e.yaml",
      """
      variants: {checkin: {mini: {steps: [sensing, acting]}}}
      experiments:
        - key: checkin-length
          flow: checkin
          variations: [full, quick, mini]
          metrics: [returned_next_day]
      """)
    let script = workspace.write(
      "s.yaml",
      """
      name: check in, maybe come back
      start: 2026-03-02T20:00
      timezone: Europe/Berlin
      steps:
        - launch
        - tap: continue
        - tap: continue
        - select: {skill: beginner}
        - tap: continue
        - tap: continue
        - expect: {flow: checkin}
        - close
        - if: {alert: checkin.confirmExit}
          then:
            - tap: exit
        - maybe:
            p: 0.5
            steps:
              - advance: 1d
              - relaunch
      """)
    func run(seed: UInt64, into name: String) async throws -> String {
      let file = workspace.path(name)
      let outcome = await wellflowRun([script]) {
        $0.eventsPath = file
        $0.experimentsPath = experiments
        $0.users = 40
        $0.seed = seed
      }
      #expect(outcome.code == 0, "\(outcome.errText)")
      return file
    }
    let first = try await run(seed: 7, into: "a.ndjson")
    let again = try await run(seed: 7, into: "b.ndjson")
    let other = try await run(seed: 8, into: "c.ndjson")
    let text = try String(contentsOfFile: first, encoding: .utf8)
    #expect(
      text == (try String(contentsOfFile: again, encoding: .utf8)), "the same run writes the same stamps")
    #expect(text != (try String(contentsOfFile: other, encoding: .utf8)))

    let all = try events(first)
    var byUser: [String: [Event]] = [:]
    for event in all { byUser[event.user, default: []].append(event) }
    #expect(byUser.count == 40)
    var users = Set<String>()
    for (user, list) in byUser {
      users.insert(user)
      for (before, after) in zip(list, list.dropFirst()) { #expect(before.ts < after.ts, "\(user)") }
    }
    // Users differ in pace: their first taps are not all at one time.
    let firstTaps = Set(byUser.values.compactMap { $0.first { $0.event == "action" }?.stamp })
    #expect(firstTaps.count > 30)
    // Returned the next day: exposed on 2 March (UTC), an event on 3 March.
    let returned = byUser.filter { _, list in list.contains { $0.stamp.hasPrefix("2026-03-03") } }.count
    #expect(returned > 5 && returned < 35)

    var configuration = ReportConfiguration(eventsPath: first, experiment: "checkin-length")
    configuration.experimentsPath = experiments
    configuration.format = .json
    let out = Locked<[String]>([])
    let code = ReportCommand.execute(
      configuration, console: Console(out: { line in out.withLock { $0.append(line) } }, err: { _ in }))
    #expect(code == 0)
    let report = try JSONDecoder().decode(ExperimentReport.self, from: Data(out.current.joined().utf8))
    #expect(report.metricNames == ["returned_next_day"])
    #expect(report.variations.map { $0.metrics[0].conversions }.reduce(0, +) == returned)
  }
}
