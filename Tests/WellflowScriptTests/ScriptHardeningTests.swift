import FlowKit
import Foundation
import ScriptTestSupport
import Testing

/// Input an attacker or an unlucky user writes: each is a positioned problem (exit 2),
/// never a trap, a hang or a silently different script.
@MainActor
@Suite("Script hardening")
struct ScriptHardeningTests {
  let workspace = Workspace()

  private func problems(_ text: String) throws -> [String] {
    workspace.write("s.yaml", text)
    return try ScriptTestSupport.problems("s.yaml", in: workspace)
  }

  private func problems(steps: String) throws -> [String] {
    try problems("name: bad\nsteps:\n" + steps + "\n")
  }

  private func problems(start: String) throws -> [String] {
    try problems("name: bad\nstart: \(start)\nsteps: [launch]\n")
  }

  @Test func repeatCountsThatDoNotFitAreRefused() throws {
    #expect(
      try problems(steps: "  - repeat: {times: 1e300, steps: [launch]}")
        == ["s.yaml:3:21: times must be a whole number from 0 to 100000, got '1e300'"])
    #expect(
      try problems(steps: "  - repeat: {times: 9223372036854775807, steps: [launch]}")
        == ["s.yaml:3:21: times must be a whole number from 0 to 100000, got '9223372036854775807'"])
    #expect(
      try problems(steps: "  - repeat: {times: -1, steps: [launch]}")
        == ["s.yaml:3:21: times must be a whole number from 0 to 100000, got '-1'"])
  }

  @Test func nestedRepeatsThatWouldRunForeverAreRefusedAtLoad() throws {
    let steps = """
        - repeat:
            times: 100000
            steps:
              - repeat: {times: 1000, steps: [launch]}
      """
    #expect(
      try problems(steps: steps) == [
        "s.yaml:4:7: this repeat would take more than 10000000 steps (100000 times a body of 1001)"
      ])
  }

  @Test func advanceAmountsAreCheckedBeforeUse() throws {
    for bad in ["infd", "nand", "1e300d", "1e15d", "-5m", "0x10s", "1.d", "d", "5 d"] {
      #expect(
        try problems(steps: "  - advance: \(bad)")
          == [
            "s.yaml:3:14: advance takes an amount and a unit (s, m, h, d), e.g. 1d or 90m; got '\(bad)'"
          ], "advance: \(bad)")
    }
    #expect(
      try problems(steps: "  - advance: 40000d")
        == ["s.yaml:3:14: advance moves the clock at most 100 years at a time (36600d), got '40000d'"])
    #expect(
      try problems(steps: "  - advance: 1.5d") == [
        "s.yaml:3:14: days advance in whole calendar days, got '1.5d'"
      ])
    #expect(try problems(steps: "  - advance: 1.5h\n  - advance: 36600d") == [])
  }

  @Test func theClockStopsAtTheEndOfYear9999() async throws {
    workspace.write(
      "s.yaml",
      """
      name: far future
      start: 9999-06-01T09:00
      steps:
        - advance: 36600d

      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(
      result.failure?.headline.hasSuffix(
        "s.yaml:4:5: advance failed: the clock would pass the end of year 9999") == true)
  }

  @Test func startIsALocalDateTimeThatACalendarHolds() throws {
    let shape = "start is a local date-time YYYY-MM-DDTHH:MM[:SS] without a zone, got"
    #expect(
      try problems(start: "2026-02-30T08:00") == [
        "s.yaml:2:8: \(shape) '2026-02-30T08:00' (2026-02 has 28 days)"
      ])
    #expect(try problems(start: "2028-02-29T08:00") == [])
    #expect(try problems(start: "2026-1-5T09:00") == ["s.yaml:2:8: \(shape) '2026-1-5T09:00'"])
    #expect(
      try problems(start: "2026-03-02T08:00+02:00") == ["s.yaml:2:8: \(shape) '2026-03-02T08:00+02:00'"])
    #expect(try problems(start: "2026-03-02T08:00Z") == ["s.yaml:2:8: \(shape) '2026-03-02T08:00Z'"])
    #expect(try problems(start: "-1-01-01T00:00") == ["s.yaml:2:8: \(shape) '-1-01-01T00:00'"])
    #expect(
      try problems(start: "0001-01-01T00:00") == ["s.yaml:2:8: \(shape) '0001-01-01T00:00' (years 1970…9999)"]
    )
    #expect(
      try problems(start: "2026-13-01T00:00") == ["s.yaml:2:8: \(shape) '2026-13-01T00:00' (no month 13)"])
    #expect(
      try problems(start: "2026-03-02T24:00") == [
        "s.yaml:2:8: \(shape) '2026-03-02T24:00' (no such time of day)"
      ])
    #expect(try problems(start: "2026-03-02T08:00:05") == [])
  }

  @Test func anchorsAndAliasesAreRefusedWhereTheyStand() throws {
    let text = """
      name: aliases
      env: &defaults {A: "1"}
      steps:
        - launch
        - expect: *defaults
        - tap: continue

      """
    #expect(
      try problems(text) == [
        "s.yaml:2:6: YAML anchors (&defaults) are not allowed: write the value out where it is used",
        "s.yaml:5:13: YAML aliases (*defaults) are not allowed: write the value out here",
      ])
  }

  @Test func aBillionLaughsIsRefusedWithoutExpandingIt() throws {
    var lines = ["name: laughs", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in 1...30 {
      let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
      lines.append("a\(level): &a\(level) [\(refs)]")
    }
    lines.append("steps: [launch]")
    let found = try problems(lines.joined(separator: "\n") + "\n")
    // One line per anchor and per alias, up to the reader's limit, and nothing expanded.
    #expect(found.count == 51)
    #expect(found.last == "s.yaml:7:30: more problems from here on are not listed; fix these first")
    #expect(
      found[0] == "s.yaml:2:5: YAML anchors (&a0) are not allowed: write the value out where it is used")
    #expect(
      found[1] == "s.yaml:3:5: YAML anchors (&a1) are not allowed: write the value out where it is used")
    #expect(found[2] == "s.yaml:3:10: YAML aliases (*a0) are not allowed: write the value out here")
  }

  @Test func duplicateKeysAreReportedOnePerLineAtTheSecondKey() throws {
    let text = """
      name: dupes
      steps:
        - expect: {screen: onboarding.welcome, screen: onboarding.skill}
      name: again

      """
    #expect(
      try problems(text) == [
        "s.yaml:3:42: duplicate key 'screen' (first on line 3)",
        "s.yaml:4:1: duplicate key 'name' (first on line 1)",
      ])
  }

  @Test func controlCharactersAreRefusedEscapedAtTheirColumn() throws {
    #expect(
      try problems("name: bell\u{07}ringer\nsteps: [launch]\n") == [
        "s.yaml:1:11: control character U+0007 is not allowed in the file (write it as \\u0007 inside double quotes)"
      ])
    #expect(
      try problems("name: x\nsteps: [launch]\u{1B}[2J\n") == [
        "s.yaml:2:16: control character U+001B is not allowed in the file (write it as \\u001B inside double quotes)"
      ])
  }

  @Test func lineSeparatorsDoNotShiftLaterLineNumbers() throws {
    // An editor shows U+2028 inside the line; YAML readers would start a new line there.
    #expect(
      try problems("name: \"a\u{2028}b\"\nsteps:\n  - tapp: continue\n") == [
        "s.yaml:1:9: line separator U+2028 is not allowed in the file (write it as \\u2028 inside double quotes)"
      ])
    // Written as an escape it is text, and later positions are those the editor shows.
    #expect(
      try problems("name: \"a\\u2028b\"\nsteps:\n  - tapp: continue\n") == [
        "s.yaml:3:5: unknown command 'tapp' (did you mean 'tap'?)"
      ])
  }

  @Test func invalidUTF8IsRefusedWithItsPosition() throws {
    var data = Data("name: x\nsteps: [la".utf8)
    data.append(0xFF)
    data.append(contentsOf: Data("unch]\n".utf8))
    try data.write(to: URL(fileURLWithPath: workspace.path("s.yaml")))
    #expect(
      try ScriptTestSupport.problems("s.yaml", in: workspace) == [
        "s.yaml:2:11: the file is not valid UTF-8 here"
      ])
  }

  @Test func deepNestingIsRefusedBeforeAnyRecursion() throws {
    let brackets = String(repeating: "[", count: 100_000)
    #expect(try problems("name: deep\nsteps: \(brackets)\n") == ["s.yaml:2:9: the file nests too deeply"])
    let dashes = String(repeating: "- ", count: 100)
    #expect(
      try problems("name: deep\nsteps:\n\(dashes)launch\n") == [
        "s.yaml:3:127: the file nests deeper than 64 levels"
      ])
  }

  @Test func aHugeUnknownIdIsAnsweredQuicklyAndQuotedShort() throws {
    let id = String(repeating: "x", count: 1_000_000)
    let found = try problems(steps: "  - tap: \(id)")
    #expect(
      found == [
        "s.yaml:3:10: unknown element 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (1000000 characters)': no registered screen has it"
      ])
  }

  @Test func subScriptsNestedTooDeepAreRefusedWithTheChain() throws {
    for level in 0..<40 {
      workspace.write("n\(level).yaml", "name: n\(level)\nsteps:\n  - run: n\(level + 1).yaml\n")
    }
    workspace.write("n40.yaml", "name: n40\nsteps: [launch]\n")
    let found = try ScriptTestSupport.problems("n0.yaml", in: workspace)
    #expect(found == ["n31.yaml:3:10: sub-scripts nest deeper than 32 levels (n0.yaml → … → n32.yaml)"])
  }

  @Test func aSecondDocumentIsRefused() throws {
    #expect(
      try problems("name: x\nsteps: [launch]\n---\nname: y\n") == [
        "s.yaml:3:1: a second YAML document starts here; a file holds one document"
      ])
  }

  @Test func anEmptyFileSaysSo() throws {
    #expect(try problems("") == ["s.yaml:1:1: the file is empty"])
    #expect(try problems("# only a comment\n") == ["s.yaml:1:1: the file is empty"])
  }
}
