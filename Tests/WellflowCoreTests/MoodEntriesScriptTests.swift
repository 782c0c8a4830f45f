import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

/// The entries list and its edit screen as scripts meet them: wrong steps fail with the
/// position and the exact reason.
@MainActor
@Suite("mood.entries in scripts")
struct MoodEntriesScriptTests {
  let workspace = Workspace()

  func failure(_ steps: String) async -> String? {
    let path = workspace.write(
      "s.yaml",
      """
      name: s
      start: 2026-03-02T20:00
      steps:
        - start: mood.log
        - tap: save
        - start: mood.entries
      \(steps)
      """)
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 1, "\(outcome.outText)")
    return outcome.err.first.map { workspace.relative([$0])[0] }.map { String($0.prefix { $0 != "\n" }) }
  }

  @Test func editIsRefusedUntilAnEntryIsChosen() async {
    #expect(await failure("  - tap: edit") == "s.yaml:7:5: tap failed: mood.entries: 'edit' is disabled")
  }

  @Test func anEntryOutsideTheListIsNamedWithTheOptions() async {
    #expect(
      await failure("  - select: {entry: \"2026-03-01T20:00\"}")
        == "s.yaml:7:5: select failed: mood.entries: 'entry' has no option '2026-03-01T20:00' "
        + "(options: 2026-03-02T20:00)")
  }

  @Test func theConfirmationTakesOnlyItsButtons() async {
    #expect(
      await failure(
        """
          - select: {entry: "2026-03-02T20:00"}
          - tap: delete
          - select: {range: 7d}
        """)
        == "s.yaml:9:5: select failed: mood.entries: alert mood.confirmDelete is up; "
        + "only its buttons accept input (delete, cancel)")
  }

  @Test func theEditScreenHasBackNotClose() async {
    #expect(
      await failure(
        """
          - select: {entry: "2026-03-02T20:00"}
          - tap: edit
          - close
        """) == "s.yaml:9:5: close failed: mood.edit: close is not available here")
  }

  @Test func aScoreOffTheSliderIsRefused() async {
    #expect(
      await failure(
        """
          - select: {entry: "2026-03-02T20:00"}
          - tap: edit
          - set: {score: 11}
        """) == "s.yaml:9:5: set failed: mood.edit: 'score' goes from 1 to 10, got 11")
  }
}
