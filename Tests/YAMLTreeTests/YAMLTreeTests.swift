import Foundation
import Testing
import YAMLTree

/// The YAML tree on its own: positions, types, refusals and `${NAME}`, with no script
/// vocabulary (the script loader's end-to-end refusals are in WellflowCoreTests).
@Suite("YAML tree")
struct YAMLTreeTests {
  private func read(_ text: String) -> (node: YNode?, problems: [String]) {
    var reader = YAMLReader(file: "f.yaml")
    let node = reader.read(text)
    return (node, reader.problems.map(\.description))
  }

  @Test func valuesKeepTheirPositionsAndPlainScalarsTheirCoreSchemaTypes() throws {
    let (node, problems) = read("name: x\ncount: 3\nwhen: 2026-03-02T08:00\nok: yes\nsteps: [a, \"3\"]\n")
    #expect(problems == [])
    let entries = try #require(node?.entries)
    #expect(entries.map(\.key) == ["name", "count", "when", "ok", "steps"])
    #expect(entries[1].keyPosition == SourcePosition(file: "f.yaml", line: 2, column: 1))
    #expect(entries[1].value.described == "a number '3'")
    // Only YAML 1.2's core schema: a date and `yes` stay text.
    #expect(entries[2].value.string == "2026-03-02T08:00")
    #expect(entries[3].value.string == "yes")
    let items = try #require(entries[4].value.items)
    #expect(items[1].described == "text '3'")
    #expect(items[1].position == SourcePosition(file: "f.yaml", line: 5, column: 12))
    #expect(node?.summaryText == "{name: x, count: 3, when: 2026-03-02T08:00, ok: yes, steps: [a, 3]}")
  }

  @Test func anchorsAliasesAndDuplicateKeysAreRefusedWhereTheyStand() {
    #expect(
      read("a: &x 1\nb: *x\na: 2\n").problems == [
        "f.yaml:1:4: YAML anchors (&x) are not allowed: write the value out where it is used",
        "f.yaml:2:4: YAML aliases (*x) are not allowed: write the value out here",
        "f.yaml:3:1: duplicate key 'a' (first on line 1)",
      ])
  }

  @Test func variablesAreReplacedAndAPlainOneIsTypedAfterwards() throws {
    let node = try #require(read("n: ${N}\nq: \"${N}\"\nl: $${N}\nu: ${M}\n").node)
    var problems: [ScriptProblem] = []
    let entries = try #require(node.substituted(["N": "4"], problems: &problems).entries)
    #expect(entries[0].value.described == "a number '4'")
    #expect(entries[1].value.described == "text '4'")
    #expect(entries[2].value.string == "${N}")
    #expect(problems.map(\.description) == ["f.yaml:4:4: undefined variable ${M} (defined: N)"])
  }

  @Test func aSuggestionNamesTheNearestKnownNameOrNothing() {
    #expect(suggestion("contnue", among: ["continue", "cancel"]) == " (did you mean 'continue'?)")
    #expect(suggestion("zzz", among: ["continue", "cancel"]) == "")
    #expect(editDistance("kitten", "sitting") == 3)
  }

  @Test func aProblemIsOneLineWithItsValueEscapedAndClipped() {
    let problem = ScriptProblem(SourcePosition(file: "f.yaml", line: 1, column: 2), "bad 'a\nb'")
    #expect(problem.description == "f.yaml:1:2: bad 'a\\nb'")
    #expect(
      clipped(String(repeating: "x", count: 100)) == String(repeating: "x", count: 80) + "… (100 characters)")
  }
}
