import ArgumentParser
import Experiments
import Foundation

/// Everything `wellflow plan` takes.
/// Everything `wellflow plan` takes, declared once: the command line parses it.
public struct PlanConfiguration: ParsableArguments, Sendable {
  public enum Format: String, Sendable, CaseIterable, ExpressibleByArgument { case text, json }

  /// The control's rate, 0 < P < 1.
  @Option(help: ArgumentHelp("The control's rate, above 0 and below 1 (0.1 for 10%).", valueName: "P"))
  public var baseline: Double

  /// The smallest absolute difference worth finding (0.02 for 2 points), > 0.
  @Option(
    help: ArgumentHelp("The absolute difference to detect, above 0 (0.02 for 2 points).", valueName: "D"))
  public var mde: Double

  @Option(help: "The two-sided significance level.")
  public var alpha = 0.05

  @Option(help: "The chance of finding a difference of --mde when there is one.")
  public var power = 0.8

  /// Variations, the control included; each other one is compared with the control.
  @Option(help: ArgumentHelp("Variations, the control included.", valueName: "K"))
  public var variations = 2

  @Option(
    name: .customLong("users-per-day"),
    help: ArgumentHelp("Users exposed a day: also print the days.", valueName: "N"))
  public var usersPerDay: Int?

  @Option(help: "Output format: text or json.")
  public var format: Format = .text

  public init() {}

  public init(baseline: Double, mde: Double) {
    self = .parsed(["--baseline=\(baseline)", "--mde=\(mde)"])
  }
}

/// How many users an experiment needs: per variation, for a two-sided test of an absolute
/// difference `mde` from `baseline` with unpooled variances,
/// n = (z₁₋α′/₂ + z_power)² · (p₁(1 − p₁) + p₂(1 − p₂)) / mde², p₂ = baseline + mde, where
/// α′ = α / (variations − 1) splits α over the comparisons with the control (Bonferroni,
/// the bound Holm's correction in the report never exceeds).
public struct ExperimentPlan: Sendable, Equatable, Codable {
  public var baseline: Double
  public var mde: Double
  public var alpha: Double
  public var power: Double
  public var variations: Int
  /// α for each comparison with the control.
  public var comparisonAlpha: Double
  public var usersPerVariation: Int
  public var totalUsers: Int
  public var usersPerDay: Int?
  public var days: Int?

  /// The plan, or the first problem with the figures given, naming its option.
  public static func make(_ configuration: PlanConfiguration) -> Result<ExperimentPlan, PlanProblem> {
    func between(_ value: Double) -> Bool { value > 0 && value < 1 }
    func shown(_ value: Double) -> String { formatted(value) }
    let c = configuration
    guard between(c.baseline) else {
      return .failure(
        PlanProblem("--baseline takes the control's rate, above 0 and below 1, got \(shown(c.baseline))"))
    }
    guard c.mde > 0, c.mde.isFinite else {
      return .failure(
        PlanProblem(
          "--mde takes the absolute difference to detect, above 0 (0.02 for 2 points), got \(shown(c.mde))"))
    }
    guard c.baseline + c.mde < 1 else {
      return .failure(
        PlanProblem(
          "--baseline plus --mde must stay below 1 (a rate), got \(shown(c.baseline)) + \(shown(c.mde)) = \(shown(c.baseline + c.mde))"
        ))
    }
    guard between(c.alpha) else {
      return .failure(PlanProblem("--alpha takes a level above 0 and below 1 (0.05), got \(shown(c.alpha))"))
    }
    guard between(c.power) else {
      return .failure(
        PlanProblem("--power takes a probability above 0 and below 1 (0.8), got \(shown(c.power))"))
    }
    guard (2...100).contains(c.variations) else {
      return .failure(
        PlanProblem("--variations takes a number from 2 to 100 (the control included), got \(c.variations)"))
    }
    if let perDay = c.usersPerDay, perDay < 1 {
      return .failure(PlanProblem("--users-per-day takes a number above 0, got \(perDay)"))
    }
    let comparisonAlpha = c.alpha / Double(c.variations - 1)
    let z = Statistics.normalQuantile(1 - comparisonAlpha / 2) + Statistics.normalQuantile(c.power)
    let treated = c.baseline + c.mde
    let variance = c.baseline * (1 - c.baseline) + treated * (1 - treated)
    let exact = z * z * variance / (c.mde * c.mde)
    guard exact < 1e12 else {
      return .failure(
        PlanProblem("--mde \(shown(c.mde)) is too small to plan for: over 10^12 users per variation"))
    }
    let perVariation = Int(exact.rounded(.up))
    let total = perVariation * c.variations
    return .success(
      ExperimentPlan(
        baseline: c.baseline, mde: c.mde, alpha: c.alpha, power: c.power, variations: c.variations,
        comparisonAlpha: comparisonAlpha, usersPerVariation: perVariation, totalUsers: total,
        usersPerDay: c.usersPerDay, days: c.usersPerDay.map { (total + $0 - 1) / $0 }))
  }

  /// `0.05`, `0.1`: a figure as given, without trailing zeros.
  static func formatted(_ value: Double) -> String {
    guard value.isFinite else { return "\(value)" }
    var text = String(format: "%.6f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  /// For people: the users, then what they buy, then the days.
  public var text: String {
    let percent = { (value: Double) in String(format: "%.1f%%", value * 100) }
    var lines = [
      "\(usersPerVariation) users per variation, \(totalUsers) in all (\(variations) variations)",
      "  to detect \(percent(baseline)) → \(percent(baseline + mde)) (\(String(format: "%+.1f pp", mde * 100))), "
        + "two-sided, with \(String(format: "%.0f%%", power * 100)) power (unpooled variance)",
    ]
    if variations > 2 {
      lines.append(
        "  α \(Self.formatted(alpha)) split over \(variations - 1) comparisons with the control: "
          + "\(Self.formatted(comparisonAlpha)) each (Bonferroni)")
    } else {
      lines.append("  α \(Self.formatted(alpha))")
    }
    if let usersPerDay, let days {
      lines.append("  at \(usersPerDay) users a day: \(days) day\(days == 1 ? "" : "s")")
    }
    return lines.joined(separator: "\n")
  }
}

/// A figure `wellflow plan` cannot plan with, said on one line.
public struct PlanProblem: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// `wellflow plan`: exit 0 with the plan, 2 for a figure outside its range.
public enum PlanCommand {
  public static func execute(_ configuration: PlanConfiguration, console: Console = .standard) -> Int32 {
    switch ExperimentPlan.make(configuration) {
    case .failure(let problem):
      console.err("error: \(problem)")
      return 2
    case .success(let plan):
      switch configuration.format {
      case .text: console.out(plan.text)
      case .json:
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        console.out(String(decoding: (try? encoder.encode(plan)) ?? Data(), as: UTF8.self))
      }
      return 0
    }
  }
}
