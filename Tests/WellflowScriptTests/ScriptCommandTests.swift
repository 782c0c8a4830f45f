import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowScript

@MainActor
@Suite("Script commands")
struct ScriptCommandTests {
  let workspace = Workspace()

  @Test func launchAppliesTheLaunchRules() async throws {
    workspace.write(
      "s.yaml",
      """
      name: launch
      steps:
        - launch
        - expect: {screen: lab.form, flow: lab}
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.failure == nil)
    #expect(
      result.trace == [
        "3 passed launch → lab.form", "4 passed expect {screen: lab.form, flow: lab} → lab.form",
      ])
  }

  @Test func startPresentsAFlowWithoutLaunchRulesAndWithAVariant() async throws {
    workspace.write(
      "s.yaml",
      """
      name: start
      steps:
        - start: {flow: lab, variant: other, trigger: notification}
        - expect: {screen: lab.form}
        - close
        - expect: {idle: true, flow: lab, outcome: cancelled}
      """)
    let events = InMemoryAnalyticsSink()
    let result = try await runScript(
      "s.yaml", in: workspace, options: ScriptRunner.Options(analytics: events))
    #expect(result.failure == nil)
    let started = try #require(events.events.first { $0.event == "flow_started" })
    #expect(started.variant == "other")
    #expect(started.fields["trigger"] == .string("notification"))
    #expect(events.events.map(\.event).last == "flow_cancelled")
  }

  @Test func inputCommandsAndExpectations() async throws {
    workspace.write(
      "s.yaml",
      """
      name: inputs
      steps:
        - start: lab
        - enter: {note: "hi there"}
        - set: {level: 8}
        - toggle: {flag: true}
        - select: {tags: [c, a]}
        - expect:
            value: {note: hi there, level: 8, flag: true, tags: [a, c]}
            enabled: ask
            text: Level caption
            alert: null
        - tap: ask
        - expect: {alert: lab.confirm, text: "Go on?"}
        - tap: stay
        - expect: {alert: null, screen: lab.form}
        - tap: ask
        - tap: proceed
        - expect: {screen: lab.done, text: Level 8}
        - back
        - expect: {screen: lab.form, value: {level: {min: 7.5, max: 8.5}}}
        - tap: ask
        - tap: proceed
        - tap: finish
        - expect: {idle: true, flow: lab, outcome: completed}
        - expect:
            data: {lab.note: hi there, lab.level: 8.0004, lab.flag: true, lab.tags: [c, a]}
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
    #expect(result.steps.count == 20)
    #expect(result.steps.allSatisfy { $0.status == .passed })
    #expect(result.steps[1].summary == "enter note: 8 characters", "entered text stays out of transcripts")
  }

  @Test func toggleOffDisablesAgain() async throws {
    workspace.write(
      "s.yaml",
      """
      name: toggle
      steps:
        - start: lab
        - expect: {disabled: ask}
        - toggle: {flag: true}
        - expect: {enabled: ask}
        - toggle: {flag: false}
        - expect: {disabled: ask, value: {flag: false}}
      """)
    #expect(try await runScript("s.yaml", in: workspace).failure == nil)
  }

  @Test func relaunchDropsFlowsAndKeepsData() async throws {
    workspace.write(
      "s.yaml",
      """
      name: relaunch
      steps:
        - launch
        - toggle: {flag: true}
        - tap: ask
        - tap: proceed
        - tap: finish
        - expect: {idle: true}
        - start: lab
        - relaunch
        - expect: {idle: true, data: {lab.flag: true}}
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
  }

  @Test func relaunchAppliesTheRulesAgain() async throws {
    workspace.write(
      "s.yaml",
      """
      name: relaunch
      steps:
        - launch
        - close
        - expect: {idle: true}
        - relaunch
        - expect: {screen: lab.form}
      """)
    #expect(try await runScript("s.yaml", in: workspace).failure == nil)
  }

  @Test func advanceMovesCalendarDaysAcrossDSTAndExactDurations() async throws {
    workspace.write(
      "s.yaml",
      """
      name: clock
      start: 2026-03-28T09:00
      timezone: Europe/Berlin
      steps:
        - expect: {data: {clock.local: 2026-03-28T09:00}}
        - advance: 1d
        - expect: {data: {clock.local: 2026-03-29T09:00}}
        - advance: 90m
        - advance: 2h
        - advance: 30s
        - advance: 30s
        - expect: {data: {clock.local: 2026-03-29T12:31}}
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
  }

  @Test func theDefaultStartIsTheFifthOfJanuaryAtNineUTC() async throws {
    workspace.write(
      "s.yaml",
      """
      name: clock
      steps:
        - expect: {data: {clock.local: 2026-01-05T09:00, lab.user: user-1}}
      """)
    #expect(try await runScript("s.yaml", in: workspace).failure == nil)
  }

  @Test func userSetsTheSignedInUser() async throws {
    workspace.write(
      "s.yaml",
      """
      name: user
      user: alice
      steps:
        - expect: {data: {lab.user: alice}}
      """)
    #expect(try await runScript("s.yaml", in: workspace).failure == nil)
    let replaced = try await runScript("s.yaml", in: workspace, as: "bob")
    #expect(replaced.failure?.message == "expect failed: lab.user is \"bob\", expected \"alice\"")
  }

  @Test func repeatRunsItsStepsTheGivenNumberOfTimes() async throws {
    workspace.write(
      "s.yaml",
      """
      name: repeat
      steps:
        - repeat:
            times: 3
            steps:
              - start: lab
        - expect: {screen: lab.form}
        - repeat: {times: 3, steps: [close]}
        - expect: {idle: true}
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
    #expect(result.trace.filter { $0.contains("start lab") }.count == 3)
    #expect(result.trace.first == "3 passed repeat 3 times → none")
    #expect(result.trace[1] == "  6 passed start lab → lab.form")
  }

  @Test func ifRunsThenOrElse() async throws {
    workspace.write(
      "s.yaml",
      """
      name: if
      steps:
        - if: {screen: lab.form}
          then: [launch]
          else: [{start: lab}]
        - expect: {screen: lab.form}
        - if: {screen: lab.form, value: {flag: false}}
          then:
            - toggle: {flag: true}
        - expect: {value: {flag: true}}
        - if: {alert: lab.confirm}
          then: [close]
        - expect: {screen: lab.form}
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
    #expect(result.steps.compactMap(\.message) == ["else", "then", "condition false, skipped"])
    #expect(!result.trace.contains { $0.contains("launch") }, "with no flow presented, screen is false")
  }

  @Test func labelsAppearInTheResult() async throws {
    workspace.write(
      "s.yaml",
      """
      name: labels
      steps:
        - start: lab
          label: open the lab
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.steps.first?.label == "open the lab")
    // The transcript's line for it: TranscriptTests.aLabelLeadsItsStepsLine.
  }

  @Test func anOptionalFailingStepIsAWarningAndTheScriptGoesOn() async throws {
    let path = workspace.write(
      "s.yaml",
      """
      name: optional
      steps:
        - start: lab
        - tap: ask
          optional: true
        - expect: {screen: lab.done}
          optional: true
        - toggle: {flag: true}
        - expect: {enabled: ask}
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.passed)
    #expect(result.steps.map(\.status) == [.passed, .warning, .warning, .passed, .passed])
    #expect(
      result.steps[1].message
        == "\(path):4:5: tap failed: lab.form: 'ask' is disabled (optional step, going on)")
    #expect(
      result.steps[2].message
        == "\(path):6:5: expect failed: screen is lab.form, expected lab.done (optional step, going on)")
  }

  @Test func aFailingStepStopsTheScriptWithItsPositionAndTheScreen() async throws {
    let path = workspace.write(
      "s.yaml",
      """
      name: failing
      steps:
        - start: lab
        - expect: {screen: lab.done}
        - tap: ask
      """)
    let result = try await runScript("s.yaml", in: workspace)
    let failure = try #require(result.failure)
    #expect(failure.headline == "\(path):4:5: expect failed: screen is lab.form, expected lab.done")
    #expect(failure.currentScreen.hasPrefix("current screen: lab.form \"Lab form\""))
    #expect(failure.currentScreen.contains("  ask: button (disabled)"))
    #expect(result.steps.map(\.status) == [.passed, .failed], "the step after the failure did not run")
  }

  @Test func actionsBeforeLaunchFail() async throws {
    workspace.write(
      "s.yaml",
      """
      name: early
      steps:
        - tap: ask
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(result.failure?.message == "tap failed: the app is not running (add `- launch` first)")
  }

  @Test func expectationMismatchesSayWhatWasThere() async throws {
    let cases: [(String, String)] = [
      ("{alert: lab.confirm}", "alert is none, expected lab.confirm"),
      ("{idle: true}", "lab is presented on lab.form, expected idle"),
      (
        "{flow: lab, outcome: completed}",
        "lab is still presented on lab.form (its latest run has not ended), expected completed"
      ),
      ("{enabled: ask}", "'ask' is disabled, expected enabled"),
      ("{disabled: note}", "'note' is enabled, expected disabled"),
      ("{value: {level: 6}}", "value of level is 5, expected 6"),
      ("{value: {finish: null}}", "lab.form has no element 'finish'"),
      ("{text: Nowhere}", "'Nowhere' is not on screen lab.form"),
      ("{data: {lab.flag: true}}", "lab.flag is false, expected true"),
      ("{data: {lab.note: null, lab.tags: [a]}}", "lab.tags is [], expected [a]"),
    ]
    for (condition, message) in cases {
      workspace.write(
        "s.yaml",
        """
        name: mismatch
        steps:
          - start: lab
          - expect: \(condition)
        """)
      let result = try await runScript("s.yaml", in: workspace)
      #expect(result.failure?.message == "expect failed: \(message)", "for \(condition)")
    }
  }
}
