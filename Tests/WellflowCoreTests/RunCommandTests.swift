import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Completes the short onboarding with ${SKILL}.
private let finishOnboarding = """
  name: finish onboarding with ${SKILL}
  env: {SKILL: beginner}
  steps:
    - start: {flow: onboarding, variant: short}
    - tap: continue
    - select: {skill: "${SKILL}"}
    - tap: continue
    - tap: continue
  """

@MainActor
@Suite("wellflow run")
struct RunCommandTests {
  let workspace = Workspace()

  private func json(_ outcome: RunOutcome) throws -> [String: Any] {
    let data = Data(outcome.outText.utf8)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  private func scripts(_ document: [String: Any]) -> [[String: Any]] {
    document["scripts"] as? [[String: Any]] ?? []
  }

  @Test func aRuntimeFailurePrintsThePositionWhatDifferedAndTheScreen() async throws {
    let path = workspace.write(
      "fails.yaml",
      """
      name: fails
      steps:
        - start: onboarding
        - expect: {screen: onboarding.features}
      """)
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 1)
    #expect(
      outcome.err == [
        """
        \(path):4:5: expect failed: screen is onboarding.welcome, expected onboarding.features
          current screen: onboarding.welcome "Welcome to Wellflow" (step 1 of 4)
            message: A minute a day to notice how you feel, name it and see it change.
            continue: button
        """
      ])
    #expect(outcome.outText.contains("1 script run: 0 passed, 1 failed"))
    #expect(outcome.outText.contains("✗ fails: \(path):4:5: expect failed"))
  }

  @Test func aRejectedActionNamesTheScreenAndElement() async throws {
    let path = workspace.write(
      "fails.yaml",
      """
      name: fails
      steps:
        - start: {flow: onboarding, variant: short}
        - tap: continue
        - tap: continue
      """)
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 1)
    #expect(
      outcome.err.first?.hasPrefix("\(path):5:5: tap failed: onboarding.skill: 'continue' is disabled\n")
        == true)
  }

  @Test func theTranscriptShowsEachStepAndItsScreen() async throws {
    let path = workspace.write(
      "ok.yaml",
      """
      name: transcript
      steps:
        - launch
        - label: first page
          tap: continue
      """)
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 0)
    #expect(outcome.err.isEmpty)
    let lines = outcome.outText.split(separator: "\n").map(String.init)
    #expect(lines.first == "▶ transcript — \(path) (user-1)")
    #expect(lines[1] == "  3:5    ✓ launch → onboarding.welcome")
    #expect(lines[2] == "  4:5    ✓ first page: tap continue → onboarding.features")
    #expect(lines.contains { $0.hasPrefix("1 script run: 1 passed, 0 failed") })
  }

  @Test func dashEOverridesTheScriptsEnv() async throws {
    workspace.write("common/finish.yaml", finishOnboarding)
    let path = workspace.write(
      "main.yaml",
      """
      name: override
      env: {SKILL: beginner}
      steps:
        - run: common/finish.yaml
        - expect: {data: {onboarding.skill: experienced}}
      """)
    #expect(await wellflowRun([path]).code == 1, "without -e the script's own SKILL is used")
    let outcome = await wellflowRun([path]) { $0.variables = ["SKILL=experienced"] }
    #expect(outcome.code == 0, "\(outcome.errText)")
  }

  @Test func aRunStepsEnvIsScopedToItsSubScript() async throws {
    workspace.write("common/finish.yaml", finishOnboarding)
    let caller = workspace.write(
      "caller.yaml",
      """
      name: scoping
      env: {SKILL: intermediate}
      steps:
        - run: {file: common/finish.yaml, env: {SKILL: experienced}}
        - expect: {data: {onboarding.skill: experienced}}
        - run: common/finish.yaml
        - expect: {data: {onboarding.skill: intermediate}}
        - start: {flow: onboarding, variant: short}
        - tap: continue
        - select: {skill: "${SKILL}"}
        - expect: {value: {skill: intermediate}}
      """)
    let defaults = workspace.write(
      "defaults.yaml",
      """
      name: sub-script defaults
      steps:
        - run: common/finish.yaml
        - expect: {data: {onboarding.skill: beginner}}
      """)
    let outcome = await wellflowRun([caller, defaults])
    #expect(outcome.code == 0, "\(outcome.errText)")
    #expect(outcome.outText.contains("2 script runs: 2 passed, 0 failed"))
  }

  @Test func shardsSplitTheSelectedScripts() async throws {
    for name in ["a", "b", "c", "d", "e"] {
      workspace.write("\(name).yaml", "name: \(name)\nsteps:\n  - launch\n")
    }
    var seen: [String] = []
    for index in 1...2 {
      let outcome = await wellflowRun([workspace.path]) {
        $0.shard = "\(index)/2"
        $0.format = .json
      }
      #expect(outcome.code == 0)
      let names = scripts(try json(outcome)).compactMap { $0["name"] as? String }
      #expect(names == (index == 1 ? ["a", "c", "e"] : ["b", "d"]))
      seen += names
    }
    #expect(seen.sorted() == ["a", "b", "c", "d", "e"])
  }

  @Test func tagsSelectScripts() async throws {
    workspace.write("a.yaml", "name: a\ntags: [smoke, onboarding]\nsteps:\n  - launch\n")
    workspace.write("b.yaml", "name: b\ntags: [slow]\nsteps:\n  - launch\n")
    workspace.write("c.yaml", "name: c\nsteps:\n  - launch\n")
    func names(_ configure: @escaping (inout RunConfiguration) -> Void) async throws -> [String] {
      let outcome = await wellflowRun([workspace.path]) {
        $0.format = .json
        configure(&$0)
      }
      return scripts(try json(outcome)).compactMap { $0["name"] as? String }
    }
    #expect(try await names { $0.includeTags = ["smoke"] } == ["a"])
    #expect(try await names { $0.includeTags = ["slow,onboarding"] } == ["a", "b"])
    #expect(try await names { $0.excludeTags = ["slow"] } == ["a", "c"])
    #expect(
      try await names {
        $0.includeTags = ["onboarding", "slow"]
        $0.excludeTags = ["smoke"]
      } == ["b"])
    let none = await wellflowRun([workspace.path]) {
      $0.includeTags = ["onboarding"]
      $0.excludeTags = ["smoke"]
    }
    #expect(none.code == 2)
    #expect(none.err == ["error: no script left to run: 3 found, none selected by the tags and shard given"])
  }

  @Test func usersRunEachScriptOncePerUser() async throws {
    let events = workspace.path("events.ndjson")
    let path = workspace.write(
      "s.yaml",
      """
      name: per user
      user: alice
      steps:
        - launch
        - expect: {screen: onboarding.welcome}
      """)
    let outcome = await wellflowRun([path]) {
      $0.users = 3
      $0.format = .json
      $0.eventsPath = events
    }
    #expect(outcome.code == 0)
    let document = try json(outcome)
    #expect(scripts(document).compactMap { $0["user"] as? String } == ["user-1", "user-2", "user-3"])
    #expect(document["passed"] as? Int == 3)
    let users = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["user"] as? String
    }
    #expect(Set(users) == ["user-1", "user-2", "user-3"], "alice is replaced")
  }

  @Test func dataDirSharesStateBetweenScripts() async throws {
    let first = workspace.write(
      "1-onboard.yaml",
      """
      name: onboard
      steps:
        - launch
        - tap: continue
        - tap: continue
        - select: {skill: intermediate}
        - tap: continue
        - tap: continue
      """)
    let second = workspace.write(
      "2-later.yaml",
      """
      name: later
      steps:
        - launch
        - expect: {flow: checkin, data: {onboarding.completed: true, onboarding.skill: intermediate}}
      """)
    let fresh = await wellflowRun([first, second])
    #expect(fresh.code == 1, "without --data-dir every script gets a fresh app")
    let data = workspace.path("data")
    let shared = await wellflowRun([first, second]) { $0.dataDirectory = data }
    #expect(shared.code == 0, "\(shared.errText)")
    #expect(FileManager.default.fileExists(atPath: data + "/wellflow.sqlite"))
  }

  @Test func eventsAreWrittenAsNDJSONWithTheSpecFields() async throws {
    let events = workspace.path("events.ndjson")
    let path = workspace.write(
      "s.yaml",
      """
      name: events
      user: alice
      start: 2026-03-02T08:00
      timezone: Europe/Berlin
      steps:
        - launch
        - tap: continue
        - back
        - tap: continue
        - tap: continue
        - select: {skill: beginner}
        - tap: continue
        - tap: continue
      """)
    #expect(await wellflowRun([path]) { $0.eventsPath = events }.code == 0)
    let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
    let all = try lines.map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
    // The daily check-in follows onboarding; its events come after onboarding's.
    let objects = Array(all.prefix { $0["flow"] as? String == "onboarding" })
    #expect(all.dropFirst(objects.count).allSatisfy { $0["flow"] as? String == "checkin" })
    #expect(all.count > objects.count)
    // Stamped in UTC from the script's start (08:00 in Berlin), at a person's pace
    // (see RunEventsPaceTests), to the millisecond.
    for object in all { #expect((object["ts"] as? String)?.hasPrefix("2026-03-02T07:0") == true) }
    for object in objects {
      #expect(object["user"] as? String == "alice")
      #expect(object["flow"] as? String == "onboarding")
      #expect(object["variant"] as? String == "standard")
    }
    let names = objects.compactMap { $0["event"] as? String }
    #expect(names.first == "flow_started")
    #expect(names.last == "flow_completed")
    #expect(names.filter { $0 == "action" }.count == 7)
    #expect(names.filter { $0 == "screen_viewed" }.count == 6)
    #expect(objects.first?["trigger"] as? String == "launch")
    #expect(objects[1]["screen"] as? String == "onboarding.welcome")
    #expect(objects.contains { $0["action"] as? String == "select" && $0["element"] as? String == "skill" })

    #expect(await wellflowRun([path]) { $0.eventsPath = events }.code == 0)
    let again = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
    #expect(again == lines, "a second run starts the file anew")
    let appending = await wellflowRun([path]) {
      $0.eventsPath = events
      $0.appendEvents = true
    }
    #expect(appending.code == 0)
    let appended = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
    #expect(appended == lines + lines, "--append adds to it")
  }

  /// A changed population rerun into the same file is reported alone: the earlier one
  /// used to stay in the file, and the report mixed both.
  @Test func rerunningASmallerPopulationLeavesOnlyItsEvents() async throws {
    let events = workspace.path("events.ndjson")
    let path = workspace.write("s.yaml", "name: per user\nsteps:\n  - launch\n")
    func users() throws -> Set<String> {
      Set(
        try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").compactMap {
          (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["user"] as? String
        })
    }
    #expect(
      await wellflowRun([path]) {
        $0.users = 3
        $0.eventsPath = events
      }.code == 0)
    #expect(try users() == ["user-1", "user-2", "user-3"])
    #expect(
      await wellflowRun([path]) {
        $0.users = 1
        $0.eventsPath = events
      }.code == 0)
    #expect(try users() == ["user-1"])
  }

  @Test func appendWithoutAnEventsFileIsAUsageError() async throws {
    let path = workspace.write("s.yaml", "name: s\nsteps:\n  - launch\n")
    let outcome = await wellflowRun([path]) { $0.appendEvents = true }
    #expect(outcome.code == 2)
    #expect(outcome.err == ["error: --append adds to the file of --events FILE; give --events too"])
    #expect(outcome.out.isEmpty)
  }

  @Test func jsonFormatParses() async throws {
    let good = workspace.write("a.yaml", "name: good\ntags: [smoke]\nsteps:\n  - launch\n")
    let bad = workspace.write("b.yaml", "name: bad\nsteps:\n  - launch\n  - expect: {idle: true}\n")
    let outcome = await wellflowRun([good, bad]) { $0.format = .json }
    #expect(outcome.code == 1)
    let document = try json(outcome)
    #expect(document["passed"] as? Int == 1)
    #expect(document["failed"] as? Int == 1)
    let results = scripts(document)
    #expect(results.count == 2)
    #expect(results[0]["name"] as? String == "good")
    #expect(results[0]["tags"] as? [String] == ["smoke"])
    #expect(results[0]["failure"] == nil)
    let failure = try #require(results[1]["failure"] as? [String: Any])
    #expect(
      failure["message"] as? String
        == "expect failed: onboarding is presented on onboarding.welcome, expected idle")
    let position = try #require(failure["position"] as? [String: Any])
    #expect(position["line"] as? Int == 4)
    #expect(position["column"] as? Int == 5)
    let steps = try #require(results[1]["steps"] as? [[String: Any]])
    #expect(steps.compactMap { $0["status"] as? String } == ["passed", "failed"])
    #expect(steps.first?["screen"] as? String == "onboarding.welcome")
  }

  @Test func junitReportIsWellFormedWithOneTestcasePerRun() async throws {
    let report = workspace.path("report.xml")
    let good = workspace.write(
      "a.yaml", "name: Fish & \"chips\" <good>\nsteps:\n  - launch\n  - label: go on\n    tap: continue\n")
    let bad = workspace.write("b.yaml", "name: bad\nsteps:\n  - launch\n  - expect: {idle: true}\n")
    let outcome = await wellflowRun([good, bad]) {
      $0.junitPath = report
      $0.users = 2
    }
    #expect(outcome.code == 1)
    let text = try String(contentsOfFile: report, encoding: .utf8)
    let document = try XMLDocument(xmlString: text, options: [])
    let root = try #require(document.rootElement())
    #expect(root.name == "testsuites")
    #expect(root.attribute(forName: "tests")?.stringValue == "4")
    #expect(root.attribute(forName: "failures")?.stringValue == "2")
    let cases = try root.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
    #expect(
      cases.compactMap { $0.attribute(forName: "name")?.stringValue } == [
        "Fish & \"chips\" <good> (user-1)", "Fish & \"chips\" <good> (user-2)", "bad (user-1)",
        "bad (user-2)",
      ])
    for testcase in cases {
      let failures = testcase.elements(forName: "failure")
      let isBad = testcase.attribute(forName: "classname")?.stringValue == "b"
      #expect(failures.count == (isBad ? 1 : 0))
      let steps = testcase.elements(forName: "system-out").first?.stringValue ?? ""
      if isBad {
        #expect(
          failures.first?.attribute(forName: "message")?.stringValue
            == "\(bad):4:5: expect failed: onboarding is presented on onboarding.welcome, expected idle")
        #expect(steps.contains("\(bad):3:5 passed launch → onboarding.welcome"))
        #expect(steps.contains("\(bad):4:5 failed expect {idle: true} → onboarding.welcome"))
      } else {
        #expect(steps.contains("\(good):4:5 passed tap continue [go on] → onboarding.features"))
      }
    }
  }

  @Test func theExampleScriptsPass() async throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let folder = root.appendingPathComponent("Apps/Wellflow/Scripts").path
    #expect(FileManager.default.fileExists(atPath: folder))
    let outcome = await wellflowRun([folder])
    #expect(outcome.code == 0, "\(outcome.errText)")
    #expect(outcome.err.isEmpty)
    let count = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yaml") }
      .count
    #expect(count >= 4)
    #expect(outcome.outText.contains("\(count) script runs: \(count) passed, 0 failed"))
  }
}
