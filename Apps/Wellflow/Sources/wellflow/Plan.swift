import ArgumentParser
import Foundation
import WellflowCore

/// The command is its configuration: every option is declared once, in WellflowCore.
typealias Plan = PlanConfiguration

extension Plan: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "plan",
    abstract:
      "Print how many users each variation of an experiment needs (and, given a daily count, the days).",
    discussion: """
      For a two-sided test of an absolute difference --mde from the control's rate
      --baseline, with unpooled variances:
        n = (z(1 − α′/2) + z(power))² · (P(1 − P) + (P + D)(1 − P − D)) / D²
      per variation, where α′ = α / (variations − 1) splits α over the comparisons
      with the control (Bonferroni). A figure outside its range is one line, exit 2.

      Example:
        wellflow plan --baseline 0.1 --mde 0.02 --users-per-day 500
      """)

  public func run() throws {
    let code = PlanCommand.execute(self)
    if code != 0 { throw ExitCode(code) }
  }
}
