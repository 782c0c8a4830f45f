import ArgumentParser
import Foundation
import WellflowCore

struct Plan: ParsableCommand {
  static let configuration = CommandConfiguration(
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

  @Option(help: ArgumentHelp("The control's rate, above 0 and below 1 (0.1 for 10%).", valueName: "P"))
  var baseline: Double

  @Option(
    help: ArgumentHelp("The absolute difference to detect, above 0 (0.02 for 2 points).", valueName: "D"))
  var mde: Double

  @Option(help: "The two-sided significance level.")
  var alpha = 0.05

  @Option(help: "The chance of finding a difference of --mde when there is one.")
  var power = 0.8

  @Option(help: ArgumentHelp("Variations, the control included.", valueName: "K"))
  var variations = 2

  @Option(
    name: .customLong("users-per-day"),
    help: ArgumentHelp("Users exposed a day: also print the days.", valueName: "N"))
  var usersPerDay: Int?

  @Option(help: "Output format: text or json.")
  var format: PlanConfiguration.Format = .text

  func run() throws {
    var configuration = PlanConfiguration(baseline: baseline, mde: mde)
    configuration.alpha = alpha
    configuration.power = power
    configuration.variations = variations
    configuration.usersPerDay = usersPerDay
    configuration.format = format
    let code = PlanCommand.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}

extension PlanConfiguration.Format: ExpressibleByArgument {}
