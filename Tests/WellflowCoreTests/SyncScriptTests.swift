import FlowKit
import Foundation
import ProgressBackend
import ScriptTestSupport
import Testing
import WellflowCore

/// `sync`, `network` and the `outbox.*`/`backend.*` queries in scripts, against the
/// embedded server and against one given with `--backend`.
@MainActor
@Suite("sync in scripts") struct SyncScriptTests {
  let workspace = Workspace()

  static let journalSteps = """
      - network: offline
      - start: journal
      - select: {entry: 1}
      - tap: confirm
      - tap: decline
      - tap: decline
      - tap: ok
      - sync
      - expect: {data: {outbox.pending: 1, outbox.failed: 0, backend.journal.count: 0}}
      - network: online
      - sync
      - expect: {data: {outbox.pending: 0, backend.journal.count: 1, backend.progress.count: 0}}
      - sync
      - expect: {data: {backend.journal.count: 1}}
    """

  @Test func aJournalEntryReachesTheEmbeddedBackendOnlyWhenOnline() async throws {
    let file = workspace.write("j.yaml", "name: journal sync\nuser: dana\nsteps:\n" + Self.journalSteps)
    let outcome = await wellflowRun([file])
    #expect(outcome.code == 0, "\(outcome.errText)")
    #expect(
      outcome.outText.contains("sync — sent 0, waiting 1, offline") || outcome.outText.contains("offline"))
  }

  @Test func eachScriptRunGetsItsOwnEmbeddedBackend() async throws {
    let script = "name: journal sync\nuser: dana\nsteps:\n" + Self.journalSteps
    workspace.write("a.yaml", script)
    workspace.write("b.yaml", script)
    let outcome = await wellflowRun([workspace.path])
    #expect(outcome.code == 0, "\(outcome.errText)")
  }

  @Test func aRealBackendIsUsedWithItsKeyAndToken() async throws {
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(apiKey: "k", jwtSecret: "s"))
    let url = try await server.start()
    let file = workspace.write("j.yaml", "name: journal sync\nuser: dana\nsteps:\n" + Self.journalSteps)
    let outcome = await wellflowRun([file]) { configuration in
      configuration.backendURL = url.absoluteString
      configuration.apiKey = "k"
      configuration.token = server.token(for: "dana")
    }
    #expect(outcome.code == 0, "\(outcome.errText)")
    // The rows stay on the real server after the run.
    let again = await wellflowRun([file]) { configuration in
      configuration.backendURL = url.absoluteString
      configuration.apiKey = "k"
      configuration.token = server.token(for: "dana")
    }
    #expect(again.code == 1, "the second run finds the first run's row")
    #expect(again.errText.contains("backend.journal.count is 1, expected 0"), "\(again.errText)")
    await server.stop()
  }

  @Test func aRefusedTokenLeavesRowsPendingAndTheStepSaysWhy() async throws {
    let server = try ProgressServer(configuration: ProgressServer.Configuration(apiKey: "k", jwtSecret: "s"))
    let url = try await server.start()
    let file = workspace.write(
      "j.yaml",
      """
      name: bad token
      steps:
        - start: journal
        - select: {entry: 1}
        - tap: confirm
        - tap: decline
        - tap: decline
        - tap: ok
        - sync
        - expect: {data: {outbox.pending: 1, outbox.failed: 0}}
      """)
    let outcome = await wellflowRun([file]) { configuration in
      configuration.backendURL = url.absoluteString
      configuration.apiKey = "k"
      configuration.token = "forged"
    }
    #expect(outcome.code == 0, "\(outcome.errText)")
    #expect(outcome.outText.contains("the backend refused the credentials (401)"), "\(outcome.outText)")
    await server.stop()
  }

  /// A pull cut short by the backend is said in the step's line: the push went through,
  /// and nothing about the pull is swallowed.
  @Test func aPullTheBackendStopsIsSaidInTheStep() async throws {
    let server = try ProgressServer(
      configuration: ProgressServer.Configuration(
        apiKey: "k", jwtSecret: "s",
        fault: { method, _ in method == "GET" ? .status(503, message: "down for maintenance") : nil }))
    let url = try await server.start()
    let file = workspace.write("p.yaml", "name: pull stopped\nuser: dana\nsteps:\n  - sync\n")
    let outcome = await wellflowRun([file]) { configuration in
      configuration.backendURL = url.absoluteString
      configuration.apiKey = "k"
      configuration.token = server.token(for: "dana")
    }
    #expect(outcome.code == 0, "\(outcome.errText)")
    #expect(
      outcome.outText.contains(
        "sync → none  (sent 0, pull stopped: the backend failed (503): down for maintenance)"),
      "\(outcome.outText)")
    await server.stop()
  }

  @Test func backendOptionsAreCheckedBeforeAnythingRuns() async throws {
    let file = workspace.write("j.yaml", "name: x\nsteps:\n  - launch\n")
    let noToken = await wellflowRun([file]) { $0.backendURL = "http://127.0.0.1:1" }
    #expect(noToken.code == 2)
    #expect(noToken.errText.contains("--backend needs --api-key and --token"))
    let badURL = await wellflowRun([file]) {
      $0.backendURL = "localhost"
      $0.apiKey = "k"
      $0.token = "t"
    }
    #expect(badURL.code == 2)
    let strayToken = await wellflowRun([file]) { $0.token = "t" }
    #expect(strayToken.code == 2)
  }

  @Test func clearStateRelaunchesWithoutLocalDataButTheBackendKeepsItsRows() async throws {
    let file = workspace.write(
      "j.yaml",
      "name: fresh install\nuser: dana\nsteps:\n" + Self.journalSteps + """

          - relaunch: {clearState: true}
          - expect: {data: {journal.count: 0, outbox.pending: 0, backend.journal.count: 1}}
        """)
    let outcome = await wellflowRun([file])
    #expect(outcome.code == 0, "\(outcome.errText)")
  }
}
