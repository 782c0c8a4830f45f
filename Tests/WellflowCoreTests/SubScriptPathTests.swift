import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore

/// `run:` reads scripts only: .yaml or .yml files in the top-level script's folder or
/// below it (or `--scripts-root`). Anything else is a positioned problem that quotes
/// nothing of the file it names.
@MainActor
@Suite("Sub-script paths")
struct SubScriptPathTests {
  let workspace = Workspace()

  /// The workspace's real path, as the problems name the folder.
  private var root: String { URL(fileURLWithPath: workspace.path).resolvingSymlinksInPath().path }

  /// `line` as `problems` gives it, the workspace's path left out.
  private func relative(_ line: String) -> String { workspace.relative([line])[0] }

  @Test func aFileThatIsNoScriptIsRefusedWithoutBeingRead() throws {
    workspace.write("s.yaml", "name: s\nsteps:\n  - run: /proc/self/status\n")
    #expect(
      try problems("s.yaml", in: workspace) == [
        "s.yaml:3:10: run: '/proc/self/status' is not a script (a sub-script is a .yaml or .yml file)"
      ])
    workspace.write("notes.txt", "secret: value\n")
    workspace.write("t.yaml", "name: t\nsteps:\n  - run: {file: notes.txt}\n")
    #expect(
      try problems("t.yaml", in: workspace) == [
        "t.yaml:3:10: run: 'notes.txt' is not a script (a sub-script is a .yaml or .yml file)"
      ])
  }

  @Test func aScriptOutsideTheTopLevelScriptsFolderIsRefusedWithoutBeingRead() throws {
    workspace.write("other/x.yaml", "secret: value\nname: x\nsteps: [tapp]\n")
    workspace.write("top/s.yaml", "name: s\nsteps:\n  - run: ../other/x.yaml\n")
    #expect(
      try problems("top/s.yaml", in: workspace) == [
        relative(
          "top/s.yaml:3:10: run: '../other/x.yaml' is outside \(root)/top, the folder sub-scripts are run from (--scripts-root names another)"
        )
      ])
    // A sub-script's own sub-scripts stay in the same folder.
    workspace.write("top/common/a.yaml", "name: a\nsteps:\n  - run: ../../other/x.yaml\n")
    workspace.write("top/t.yaml", "name: t\nsteps:\n  - run: common/a.yaml\n")
    #expect(
      try problems("top/t.yaml", in: workspace) == [
        relative(
          "top/common/a.yaml:3:10: run: '../../other/x.yaml' is outside \(root)/top, the folder sub-scripts are run from (--scripts-root names another)"
        )
      ])
  }

  @Test func aLinkIsJudgedByTheFileItLeadsTo() throws {
    workspace.write("notes.txt", "secret: value\n")
    try FileManager.default.createSymbolicLink(
      atPath: workspace.path("n.yaml"), withDestinationPath: workspace.path("notes.txt"))
    try FileManager.default.createSymbolicLink(
      atPath: workspace.path("p.yaml"), withDestinationPath: "/proc/self/status")
    workspace.write("s.yaml", "name: s\nsteps:\n  - run: n.yaml\n  - run: p.yaml\n")
    #expect(
      try problems("s.yaml", in: workspace) == [
        relative("s.yaml:3:10: run: 'n.yaml' is not a script file (it leads to \(root)/notes.txt)"),
        relative(
          "s.yaml:4:10: run: 'p.yaml' is outside \(root), the folder sub-scripts are run from (--scripts-root names another)"
        ),
      ])
  }

  @Test func scriptsRootAllowsAnotherFolder() async throws {
    workspace.write("other/x.yaml", "name: x\nsteps:\n  - start: onboarding\n")
    let script = workspace.write("top/s.yaml", "name: s\nsteps:\n  - run: ../other/x.yaml\n")
    let refused = await wellflowRun([script])
    #expect(refused.code == 2)
    let allowed = await wellflowRun([script]) { $0.scriptsRoot = workspace.path }
    #expect(allowed.code == 0, "\(allowed.errText)")
    let missing = await wellflowRun([script]) { $0.scriptsRoot = workspace.path("nothere") }
    #expect(missing.code == 2)
    #expect(missing.err == ["error: --scripts-root takes a folder, got '\(workspace.path("nothere"))'"])
  }
}
