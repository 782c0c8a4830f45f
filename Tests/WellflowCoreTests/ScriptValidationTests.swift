import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

@MainActor
@Suite("Script validation")
struct ScriptValidationTests {
  let workspace = Workspace()

  /// The problems of a script made of `steps` (from line 3, column 3).
  private func problems(steps: String, env: String? = nil) throws -> [String] {
    let header = "name: bad\n" + (env.map { "env: \($0)\n" } ?? "")
    workspace.write("s.yaml", header + "steps:\n" + steps + "\n")
    return try ScriptTestSupport.problems("s.yaml", in: workspace)
  }

  @Test func aValidScriptHasNoProblems() throws {
    #expect(try problems(steps: "  - start: onboarding\n  - expect: {screen: onboarding.welcome}") == [])
  }

  @Test func yamlSyntaxError() throws {
    workspace.write("s.yaml", "name: bad\nsteps: [launch\n")
    #expect(
      try ScriptTestSupport.problems("s.yaml", in: workspace) == [
        "s.yaml:3:1: invalid YAML: while parsing a flow sequence did not find expected ',' or ']'"
      ])
  }

  @Test func unknownCommandWithASuggestion() throws {
    #expect(
      try problems(steps: "  - tapp: continue") == [
        "s.yaml:3:5: unknown command 'tapp' (did you mean 'tap'?)"
      ])
    #expect(
      try problems(steps: "  - lunch") == ["s.yaml:3:5: unknown command 'lunch' (did you mean 'launch'?)"])
    #expect(try problems(steps: "  - swipe: left") == ["s.yaml:3:5: unknown command 'swipe'"])
  }

  @Test func unknownFlow() throws {
    #expect(
      try problems(steps: "  - start: onbording")
        == ["s.yaml:3:12: unknown flow 'onbording' (did you mean 'onboarding'?)"])
    #expect(try problems(steps: "  - start: {flow: gratitude}") == ["s.yaml:3:12: unknown flow 'gratitude'"])
  }

  @Test func unknownVariant() throws {
    #expect(
      try problems(steps: "  - start: {flow: onboarding, variant: long}")
        == ["s.yaml:3:12: flow 'onboarding' has no variant 'long' (variants: standard, short)"])
  }

  @Test func unknownScreenInExpect() throws {
    #expect(
      try problems(steps: "  - expect: {screen: onboarding.welcom}")
        == ["s.yaml:3:22: unknown screen 'onboarding.welcom' (did you mean 'onboarding.welcome'?)"])
    #expect(
      try problems(steps: "  - if: {screen: settings.main}\n    then: [back]")
        == ["s.yaml:3:18: unknown screen 'settings.main'"])
  }

  @Test func unknownElement() throws {
    #expect(
      try problems(steps: "  - tap: contine")
        == ["s.yaml:3:10: unknown element 'contine': no registered screen has it (did you mean 'continue'?)"])
    #expect(
      try problems(steps: "  - select: {colour: teal}")
        == ["s.yaml:3:14: unknown element 'colour': no registered screen has it"])
    #expect(
      try problems(steps: "  - expect: {value: {skil: beginner}}")
        == ["s.yaml:3:22: unknown element 'skil': no registered screen has it (did you mean 'skill'?)"])
  }

  @Test func unknownQuery() throws {
    #expect(
      try problems(steps: "  - expect: {data: {gratitude.count: 1}}") == [
        "s.yaml:3:21: unknown query 'gratitude.count'"
      ])
    #expect(
      try problems(steps: "  - expect: {data: {onboarding.skil: beginner}}")
        == ["s.yaml:3:21: unknown query 'onboarding.skil' (did you mean 'onboarding.skill'?)"])
  }

  @Test func wrongValueTypes() throws {
    #expect(
      try problems(steps: "  - set: {skill: high}") == [
        "s.yaml:3:18: set skill takes a number, got text 'high'"
      ])
    #expect(
      try problems(steps: "  - toggle: {skill: 1}")
        == ["s.yaml:3:21: toggle skill takes true or false, got a number '1'"])
    #expect(
      try problems(steps: "  - expect: {data: {onboarding.completed: yes}}")
        == ["s.yaml:3:43: onboarding.completed is a flag (true or false), got text 'yes'"])
    #expect(
      try problems(steps: "  - expect: {data: {onboarding.skill: [a, b]}}")
        == ["s.yaml:3:39: onboarding.skill is text, got a list"])
    #expect(
      try problems(steps: "  - set: {skill: [1, 2]}") == ["s.yaml:3:18: set skill takes a number, got a list"]
    )
    #expect(try problems(steps: "  - set: {skill: }") == ["s.yaml:3:18: set skill takes a number, got null"])
    #expect(
      try problems(steps: "  - expect: {idle: maybe}") == [
        "s.yaml:3:20: idle must be true or false, got text 'maybe'"
      ])
    #expect(
      try problems(steps: "  - advance: 1w")
        == ["s.yaml:3:14: advance takes an amount and a unit (s, m, h, d), e.g. 1d or 90m; got '1w'"])
  }

  @Test func undefinedVariable() throws {
    #expect(
      try problems(steps: "  - select: {skill: \"${LEVEL}\"}")
        == ["s.yaml:3:21: undefined variable ${LEVEL} (no variables are defined)"])
    #expect(
      try problems(steps: "  - select: {skill: \"${LEVEL}\"}", env: "{SKILL: beginner, MOOD: calm}")
        == ["s.yaml:4:21: undefined variable ${LEVEL} (defined: MOOD, SKILL)"])
  }

  @Test func missingName() throws {
    workspace.write("s.yaml", "steps:\n  - launch\n")
    #expect(
      try ScriptTestSupport.problems("s.yaml", in: workspace) == [
        "s.yaml:1:1: the script has no name (add `name: …`)"
      ])
  }

  @Test func runOfAMissingFile() throws {
    #expect(
      try problems(steps: "  - run: common/nothere.yaml")
        == ["s.yaml:3:10: no script file 'common/nothere.yaml' (looked for common/nothere.yaml)"])
  }

  @Test func aScriptThatRunsItself() throws {
    #expect(try problems(steps: "  - run: s.yaml") == ["s.yaml:3:10: 's.yaml' runs itself (s.yaml → s.yaml)"])
  }

  @Test func scriptsThatRunEachOther() throws {
    workspace.write("a.yaml", "name: a\nsteps:\n  - run: sub/b.yaml\n")
    workspace.write("sub/b.yaml", "name: b\nsteps:\n  - launch\n  - run: ../a.yaml\n")
    #expect(
      try ScriptTestSupport.problems("a.yaml", in: workspace) == [
        "sub/b.yaml:4:10: '../a.yaml' runs itself (a.yaml → b.yaml → a.yaml)"
      ])
  }

  @Test func problemsInASubScriptNameTheSubScript() throws {
    workspace.write("common/sub.yaml", "name: sub\nsteps:\n  - launch\n  - tap: nothing\n")
    #expect(
      try problems(steps: "  - run: common/sub.yaml")
        == ["common/sub.yaml:4:10: unknown element 'nothing': no registered screen has it"])
  }

  @Test func syncAndNetworkTakeTheirValues() throws {
    #expect(try problems(steps: "  - sync\n  - network: offline\n  - network: online\n  - relaunch") == [])
    #expect(try problems(steps: "  - relaunch: {clearState: true}") == [])
    #expect(
      try problems(steps: "  - network: flaky") == [
        "s.yaml:3:14: network takes offline or online, got 'flaky'"
      ])
    #expect(try problems(steps: "  - sync: now") == ["s.yaml:3:11: 'sync' takes no value, got 'now'"])
    #expect(try problems(steps: "  - network") == ["s.yaml:3:5: 'network' needs a value"])
  }

  @Test func everyProblemIsListedAndNothingRuns() async throws {
    let events = workspace.path("events.ndjson")
    workspace.write("a-good.yaml", "name: good\nsteps:\n  - launch\n")
    workspace.write(
      "b-bad.yaml",
      """
      name: bad
      steps:
        - launch
        - tapp: continue
        - start: gratitude
        - expect: {data: {gratitude.count: 1}}
        - network: flaky
      """)
    workspace.write("c-bad.yaml", "steps:\n  - select: {skill: \"${X}\"}\n")
    let outcome = await wellflowRun([workspace.path]) { $0.eventsPath = events }
    #expect(outcome.code == 2)
    #expect(outcome.out.isEmpty, "no transcript: nothing ran")
    #expect(
      workspace.relative(outcome.err) == [
        "b-bad.yaml:4:5: unknown command 'tapp' (did you mean 'tap'?)",
        "b-bad.yaml:5:12: unknown flow 'gratitude'",
        "b-bad.yaml:6:21: unknown query 'gratitude.count'",
        "b-bad.yaml:7:14: network takes offline or online, got 'flaky'",
        "c-bad.yaml:2:21: undefined variable ${X} (no variables are defined)",
        "c-bad.yaml:1:1: the script has no name (add `name: …`)",
        "6 problems found; no script ran",
      ])
    let written = (try? String(contentsOfFile: events, encoding: .utf8)) ?? ""
    #expect(written.isEmpty, "no event was recorded")
  }

  @Test func usageErrorsExitTwo() async throws {
    let script = workspace.write("s.yaml", "name: s\nsteps:\n  - launch\n")
    let missing = await wellflowRun([workspace.path("none.yaml")])
    #expect(missing.code == 2)
    #expect(missing.err == ["error: no such file or folder: \(workspace.path("none.yaml"))"])
    let badShard = await wellflowRun([script]) { $0.shard = "3/2" }
    #expect(badShard.code == 2)
    #expect(badShard.err == ["error: --shard takes I/N with 1 ≤ I ≤ N (e.g. 2/4), got '3/2'"])
    let badVariable = await wellflowRun([script]) { $0.variables = ["NOVALUE"] }
    #expect(badVariable.err == ["error: -e takes KEY=VALUE, got 'NOVALUE'"])
    #expect(badVariable.code == 2)
    let empty = Workspace()
    let nothing = await wellflowRun([empty.path])
    #expect(nothing.code == 2)
  }
}
