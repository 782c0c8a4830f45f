import FlowKit
import Foundation
import ScriptTestSupport
import Testing

@testable import WellflowScript

/// Script commands are one table of types: the loader, the schema and the runner read
/// their names, values and branches from it and from nowhere else.
@MainActor
@Suite("Script command table")
struct ScriptCommandTableTests {
  let workspace = Workspace()

  private func problems(steps: String) throws -> [String] {
    workspace.write("s.yaml", "name: bad\nsteps:\n" + steps + "\n")
    return try ScriptTestSupport.problems("s.yaml", in: workspace)
  }

  @Test func theTableNamesEveryCommandOnceInItsOrder() {
    #expect(
      ScriptCommands.names == [
        "launch", "relaunch", "start", "tap", "select", "enter", "set", "toggle", "back", "close", "expect",
        "advance", "network", "sync", "run", "repeat", "if", "open", "maybe",
      ])
    #expect(Set(ScriptCommands.names).count == ScriptCommands.all.count)
    for name in ScriptCommands.names { #expect(ScriptCommands.named(name)?.name == name) }
  }

  @Test func aStepWithoutACommandListsTheTable() throws {
    #expect(
      try problems(steps: "  - label: nothing") == [
        "s.yaml:3:5: the step names no command (commands: launch, relaunch, start, tap, select, enter, set, toggle, back, close, expect, advance, network, sync, run, repeat, if, open, maybe)"
      ])
  }

  @Test func aBranchBelongsToTheCommandThatDeclaresIt() throws {
    #expect(
      try problems(steps: "  - tap: continue\n    then: [back]") == [
        "s.yaml:4:5: 'then' belongs to an `if` step"
      ])
    #expect(
      try problems(steps: "  - if: {screen: onboarding.welcome}\n    else: [back]") == [
        "s.yaml:3:5: if needs `then:` with a list of steps"
      ])
  }

  @Test func commandsWithoutAValueAreTheOnesThatTakeNone() {
    let bare = ScriptCommands.all.filter { $0.takes != .required }.map { $0.name }
    #expect(bare == ["launch", "relaunch", "back", "close", "sync"])
  }
}
