import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowReports

@Suite("Transcript")
@MainActor
struct TranscriptTests {
  let workspace = Workspace()

  /// A step's label leads its line, before what the step did.
  @Test func aLabelLeadsItsStepsLine() async throws {
    workspace.write(
      "s.yaml",
      """
      name: labels
      steps:
        - start: lab
          label: open the lab
      """)
    let result = try await runScript("s.yaml", in: workspace)
    #expect(TranscriptFormatter.text(result).contains("open the lab: start lab → lab.form"))
  }
}
