import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowScript

/// `- maybe: {p, steps}`: steps run with probability p, drawn from the run's --seed and
/// the user id, so `--users N` simulates the same population every time.
@MainActor
@Suite("maybe steps")
struct MaybeStepTests {
  let workspace = Workspace()

  static let script = """
    name: maybe
    steps:
      - start: onboarding
      - maybe:
          p: 0.4
          steps:
            - tap: continue
      - repeat:
          times: 3
          steps:
            - maybe: {p: 0.5, steps: []}
    """

  /// Per user, whether each maybe ran (`1`) or not (`0`), in order.
  func draws(seed: UInt64, users: Int) async throws -> [String] {
    workspace.write("maybe.yaml", Self.script)
    var rows: [String] = []
    for index in 1...users {
      let result = try await runScript(
        "maybe.yaml", in: workspace, registry: try WellflowApp.makeRegistry(), as: "user-\(index)",
        options: ScriptRunner.Options(storage: .sqliteScratch, seed: seed))
      #expect(result.failure == nil, "\(result.failure?.headline ?? "")")
      let bits = result.steps.filter { $0.summary.hasPrefix("maybe") }.map {
        $0.message == "drawn, ran" ? "1" : "0"
      }
      // The body ran exactly when drawn: onboarding moved past welcome.
      let moved = result.steps.contains { $0.summary == "tap continue" }
      #expect(moved == (bits.first == "1"))
      rows.append(bits.joined())
    }
    return rows
  }

  @Test func drawsAreDeterministicPerSeedAndUser() async throws {
    let first = try await draws(seed: 7, users: 60)
    let again = try await draws(seed: 7, users: 60)
    #expect(first == again)
    let other = try await draws(seed: 8, users: 60)
    #expect(first != other)
    // Users differ, and each maybe in the repeat draws anew.
    #expect(Set(first).count > 10)
    let ran = first.map { $0.first == "1" ? 1 : 0 }.reduce(0, +)
    // p 0.4 over 60 users: far from none and from all (binomial sd ≈ 3.8).
    #expect((10...40).contains(ran), "\(ran) of 60")
  }

  @Test func badProbabilitiesArePositioned() throws {
    workspace.write(
      "bad.yaml",
      """
      name: bad
      steps:
        - maybe: {p: 1.5, steps: [launch]}
        - maybe: {p: -0.1, steps: []}
        - maybe: {p: 1e999, steps: []}
        - maybe: {p: often, steps: []}
        - maybe: {steps: []}
        - maybe: {p: 0.5}
        - maybe: {p: 0.5, steps: [], chance: 1}
        - maybe: [launch]
      """)
    #expect(
      try problems("bad.yaml", in: workspace, registry: try WellflowApp.makeRegistry()) == [
        "bad.yaml:3:16: p must be a probability from 0 to 1, got 1.5",
        "bad.yaml:4:16: p must be a probability from 0 to 1, got -0.1",
        "bad.yaml:5:16: p must be a probability from 0 to 1, got '1e999'",
        "bad.yaml:6:16: p must be a probability from 0 to 1, got 'often'",
        "bad.yaml:7:12: maybe needs `p` (the probability its steps run, 0 to 1)",
        "bad.yaml:8:12: maybe needs `steps`",
        "bad.yaml:9:32: unknown key 'chance' in maybe",
        "bad.yaml:10:12: maybe takes {p: 0.3, steps: […]}, got a list",
      ])
  }
}
