import FlowKit
import Foundation
import ScriptTestSupport
import Sync
import Testing
import WellflowCore
import WellflowScript

/// Names that reach SQLite or the file system are taken whole or refused: a
/// NUL would end them there, so `alice\0x` would be alice and `a.yaml\0x` a.yaml.
@MainActor
@Suite("Account and file names")
struct AccountNameTests {
  let workspace = Workspace()
  static let rule = "(a user id is 1 to 256 characters, none of them a control character)"

  private func problems(_ text: String) throws -> [String] {
    workspace.write("s.yaml", text)
    return try ScriptTestSupport.problems("s.yaml", in: workspace)
  }

  @Test func aScriptUserWithAControlCharacterIsRefusedAtItsPosition() throws {
    #expect(
      try problems("name: s\nuser: \"alice\\0x\"\nsteps: [launch]\n") == [
        "s.yaml:2:7: user 'alice\\u{0}x' holds the control character U+0000 at character 6 \(Self.rule)"
      ])
    #expect(
      try problems("name: s\nuser: \"bob\\e[2J\"\nsteps: [launch]\n") == [
        "s.yaml:2:7: user 'bob\\u{1B}[2J' holds the control character U+001B at character 4 \(Self.rule)"
      ])
    #expect(
      try problems("name: s\nuser: \"\"\nsteps: [launch]\n") == ["s.yaml:2:7: user '' is empty \(Self.rule)"])
    let long = String(repeating: "u", count: 257)
    #expect(
      try problems("name: s\nuser: \(long)\nsteps: [launch]\n") == [
        "s.yaml:2:7: user '\(long.prefix(80))… (257 characters)' has 257 characters \(Self.rule)"
      ])
    #expect(try problems("name: s\nuser: \(long.dropLast())\nsteps: [launch]\n") == [])
  }

  @Test func aUserGivenWithDashEIsCheckedAfterSubstitution() async throws {
    let file = workspace.write("s.yaml", "name: s\nuser: ${WHO}\nsteps: [launch]\n")
    let outcome = await wellflowRun([file]) { $0.variables = ["WHO=al\u{1}ice"] }
    #expect(outcome.code == 2)
    #expect(
      workspace.relative(outcome.err) == [
        "s.yaml:2:7: user 'al\\u{1}ice' holds the control character U+0001 at character 3 \(Self.rule)",
        "1 problem found; no script ran",
      ])
  }

  @Test func aSubScriptNameWithANULIsRefusedRatherThanCut() throws {
    workspace.write("other.yaml", "name: other\nsteps: [launch]\n")
    #expect(
      try problems("name: s\nsteps:\n  - run: \"other.yaml\\0x\"\n") == [
        "s.yaml:3:10: run: the file name 'other.yaml\\u{0}x' holds the control character U+0000 at character 11"
      ])
    #expect(
      try problems("name: s\nsteps:\n  - run: {file: \"other.yaml\\0\"}\n") == [
        "s.yaml:3:10: run: the file name 'other.yaml\\u{0}' holds the control character U+0000 at character 11"
      ])
  }

  @Test func anExperimentKeyWithAControlCharacterIsRefusedAtItsPosition() throws {
    let path = workspace.write(
      "experiments.yaml",
      """
      experiments:
        - key: "onboarding-length\\0x"
          flow: onboarding
          variations: [standard, short]

      """)
    switch ExperimentFile.load(path: path, registry: try WellflowApp.makeRegistry()) {
    case .success: Issue.record("an experiment key holding a NUL was accepted")
    case .failure(let failure):
      #expect(
        workspace.relative(failure.problems.map(\.description)) == [
          "experiments.yaml:2:10: key 'onboarding-length\\u{0}x' holds the control character U+0000 at character 18"
        ])
    }
  }

  @Test func runRefusesADataFolderWithAControlCharacter() async throws {
    let file = workspace.write("s.yaml", "name: s\nsteps: [launch]\n")
    let outcome = await wellflowRun([file]) { $0.dataDirectory = "data\u{0}x" }
    #expect(outcome.code == 2)
    #expect(
      outcome.err == ["error: --data-dir 'data\\u{0}x' holds the control character U+0000 at character 5"])
  }

  @Test func exportRefusesAUserOrDataFolderWithAControlCharacterInsteadOfCuttingIt() async throws {
    let script = workspace.write(
      "seed.yaml",
      """
      name: Seed
      user: alice
      steps:
        - start: mood.log
        - set: {score: 7}
        - tap: save

      """)
    let data = workspace.path("data")
    let seeded = await wellflowRun([script]) { $0.dataDirectory = data }
    #expect(seeded.code == 0, "\(seeded.errText)")
    func export(user: String, dataDirectory: String = data) async -> (code: Int32, out: String, err: [String])
    {
      var configuration = ExportConfiguration(dataDirectory: dataDirectory)
      configuration.userID = user
      let out = Locked("")
      let err = Locked<[String]>([])
      let code = await ExportCommand.execute(
        configuration, write: { text in out.withLock { $0 += text } },
        console: Console(out: { _ in }, err: { text in err.withLock { $0.append(text) } }))
      return (code, out.current, err.current)
    }
    let alice = await export(user: "alice")
    #expect(alice.code == 0 && alice.out.contains("mood,"), "\(alice.err)")
    let cut = await export(user: "alice\u{0}x")
    #expect(cut.code == 2 && cut.out.isEmpty)
    #expect(
      cut.err == [
        "wellflow export: --user 'alice\\u{0}x' holds the control character U+0000 at character 6 \(Self.rule)"
      ])
    let empty = await export(user: "")
    #expect(empty.err == ["wellflow export: --user '' is empty \(Self.rule)"])
    let folder = await export(user: "alice", dataDirectory: data + "\u{0}x")
    #expect(folder.code == 2 && folder.out.isEmpty)
    // The folder's path is quoted clipped; where the NUL is counts from its start.
    #expect(folder.err.count == 1)
    #expect(folder.err.first?.hasPrefix("wellflow export: --data-dir '") == true)
    #expect(
      folder.err.first?.hasSuffix(
        "' holds the control character U+0000 at character \(data.unicodeScalars.count + 1)") == true,
      "\(folder.err)")
  }

  @Test func theEmbeddedBackendRenewsItsTokenBeforeItExpires() async throws {
    let clock = Locked(Date(timeIntervalSince1970: 1_772_438_400))
    let backend = EmbeddedBackend(databasePath: nil, now: { clock.current })
    let first = try await backend.api(for: "dana")
    #expect(try await first.listProgress(ListQuery()).total == 0)
    // Two days on (a preview left open): the first token has expired, a new one is used.
    clock.withLock { $0 += 2 * 86_400 }
    await #expect(throws: ProgressAPIError.unauthorized("the bearer token has expired")) {
      try await first.listProgress(ListQuery())
    }
    let renewed = try await backend.api(for: "dana")
    #expect(try await renewed.listProgress(ListQuery()).total == 0)
    await backend.stop()
  }
}
