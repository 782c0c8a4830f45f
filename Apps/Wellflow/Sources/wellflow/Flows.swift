import ArgumentParser
import Foundation
import WellflowCore

struct Flows: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flows",
    abstract:
      "List the registered flows with their variants and screens (each element's kind, label, options and range), the queries and the launch rules.",
    discussion: """
      The kinds, labels, options and ranges are read off the screens each variant
      shows when explored; an element on a screen not reached is listed as unknown.

      Examples:
        wellflow flows
        wellflow flows --format json \\
          --experiments Apps/Wellflow/Experiments/checkin-length.yaml
      """)

  @Option(help: "Output format: text or json.")
  var format: FlowsListing.Format = .text

  @OptionGroup var sources: VariantOptions

  @MainActor
  func run() async throws {
    let loaded = try sources.load()
    let catalog = await FlowsListing.catalog(loaded.registry)
    StandardStreams.out(
      (format == .json
        ? FlowsListing.json(catalog)
        : ([FlowsListing.text(catalog)] + loaded.featureLines).joined(separator: "\n")) + "\n")
  }
}

extension FlowsListing.Format: ExpressibleByArgument {}
