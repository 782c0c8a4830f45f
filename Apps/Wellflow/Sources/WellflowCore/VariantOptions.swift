import ArgumentParser
import Foundation

/// `--experiments` and `--growthbook` for the commands that name flows.
public struct VariantOptions: ParsableArguments, Sendable {
  @Option(
    help: ArgumentHelp(
      "An experiment file: its declared variants can be named (a file may declare only variants:).",
      valueName: "FILE"))
  public var experiments: String?

  @Option(
    name: .customLong("growthbook"),
    help: ArgumentHelp(
      "A GrowthBook SDK payload: without --variant, its wellflow.<flow> feature chooses the variant for --user.",
      valueName: "FILE"))
  public var growthBook: String?

  @Option(help: "The user whose variant --growthbook or --experiments choose when --variant is omitted.")
  public var user: String = "user-1"

  public init() {}

  /// The registry with the files' variants; problems are printed and exit 2.
  @MainActor
  public func load() throws -> VariantSources {
    guard
      let sources = VariantSources.load(
        experimentsPath: experiments, growthBookPath: growthBook, console: .standard)
    else { throw ExitCode(2) }
    return sources
  }

  /// `--variant` when given, else what the files give the user, else the flow's default.
  @MainActor
  public func variant(_ given: String?, of flow: String, in sources: VariantSources) -> String? {
    given ?? sources.variant(for: flow, user: user)
  }
}
