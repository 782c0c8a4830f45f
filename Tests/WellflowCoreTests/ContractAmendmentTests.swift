import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

/// Amendments to the script contract: folders run `*.yml` too, `alert: null` holds with
/// no flow presented, a journal the person asks for after a notification is their own.
@MainActor
@Suite("Contract amendments")
struct ContractAmendmentTests {
  let workspace = Workspace()

  @Test func aFolderRunsYamlAndYmlButNotHiddenFilesOrSubfolders() async throws {
    let script = "name: NAME\nsteps: [launch]\n"
    workspace.write("suite/b.yml", script.replacingOccurrences(of: "NAME", with: "b"))
    workspace.write("suite/a.yaml", script.replacingOccurrences(of: "NAME", with: "a"))
    workspace.write("suite/.hidden.yaml", script.replacingOccurrences(of: "NAME", with: "hidden"))
    workspace.write("suite/nested/c.yaml", script.replacingOccurrences(of: "NAME", with: "c"))
    workspace.write("suite/notes.txt", "not a script")
    let outcome = await wellflowRun([workspace.path("suite")]) { $0.format = .json }
    #expect(outcome.code == 0)
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.outText.utf8)) as? [String: Any])
    let names = (document["scripts"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    #expect(names == ["a", "b"])
  }

  @Test func alertNullHoldsWithNoFlowPresented() async throws {
    let path = workspace.write(
      "alert.yaml",
      """
      name: alert null
      steps:
        - launch
        - expect: {alert: null}
        - if: {alert: null}
          then: [{start: mood.log}]
        - expect: {screen: mood.log}
        - if: {alert: mood.error}
          then: [close]
          else: [{expect: {alert: null}}]
      """)
    let outcome = await wellflowRun([path])
    #expect(outcome.code == 0, "\(outcome.errText)")
  }

  @Test func aJournalAskedForAfterANotificationCheckInIsInitiatedBySelf() async throws {
    let events = workspace.path("events.ndjson")
    let path = workspace.write(
      "journal.yaml",
      """
      name: notification check-in, then the journal
      start: 2026-03-02T12:30
      steps:
        - launch
        - run: \(FileManager.default.currentDirectoryPath)/Apps/Wellflow/Scripts/common/complete-onboarding.yaml
        - close
        - start: {flow: checkin, variant: quick, trigger: notification}
        - tap: continue
        - select: {emotion: calm}
        - tap: continue
        - tap: journal
        - expect: {screen: journal.catalog}
        - select: {entry: 1}
        - tap: confirm
        - tap: decline
        - tap: decline
        - tap: ok
        - expect: {idle: true, flow: journal, outcome: completed}
      """)
    // The sub-script lies in the repository, outside the workspace's folder.
    let outcome = await wellflowRun([path]) {
      $0.eventsPath = events
      $0.scriptsRoot = FileManager.default.currentDirectoryPath + "/Apps/Wellflow/Scripts"
    }
    #expect(outcome.code == 0, "\(outcome.errText)")
    let logged = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
      .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
      .filter { $0["event"] as? String == "journal_logged" }
    #expect(logged.count == 1)
    #expect(logged.first?["initiated_by"] as? String == "self")
  }
}
