import ArgumentParser
import FlowKit
import Foundation
import WellflowCore

@main
struct Wellflow: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "wellflow",
    abstract: "Build and test wellness-app flows headlessly: run YAML scripts against the registered flows.",
    discussion: """
      Scripts drive the app's flows without a UI, on a clock the runner controls, so a
      journey of many days runs in milliseconds. Start with:

        wellflow flows                      what flows, screens and queries exist
        wellflow run Apps/Wellflow/Scripts  run every script in a folder
      """,
    subcommands: [Run.self, Flows.self])

  /// Usage errors exit 2, as every other "nothing ran" case does (SPEC §5).
  static func main() async {
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      if exitCode(for: error) == .validationFailure {
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        Foundation.exit(2)
      }
      exit(withError: error)
    }
  }
}

struct Run: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run scripts: files, or folders of *.yaml (not their subfolders), in name order.",
    discussion: """
      Every script (and every sub-script it runs) is checked before any step runs;
      problems are listed as file:line:column: message and nothing runs (exit 2).
      A failing step prints file:line:column:, what was expected, what was there and
      the current screen (exit 1). Each script gets a fresh app unless --data-dir is given.

      Examples:
        wellflow run Apps/Wellflow/Scripts
        wellflow run onboarding.yaml --format json --junit report.xml
        wellflow run Scripts --include-tags smoke --shard 1/2 -e NOTE="slept well"
      """)

  @Argument(help: "Script files or folders.")
  var paths: [String]

  @Option(help: "Output format: text (a transcript) or json.")
  var format: RunConfiguration.Format = .text

  @Option(help: "Write a JUnit XML report to this file.")
  var junit: String?

  @Option(name: .customLong("data-dir"), help: "Keep the app's data in this folder, shared by every script.")
  var dataDir: String?

  @Option(help: "Run only part I of N of the selected scripts (I/N, e.g. 1/4).")
  var shard: String?

  @Option(
    name: .customLong("include-tags"), help: "Run only scripts with one of these tags (comma-separated).")
  var includeTags: [String] = []

  @Option(name: .customLong("exclude-tags"), help: "Skip scripts with one of these tags (comma-separated).")
  var excludeTags: [String] = []

  @Option(help: "Run each script once per user user-1…user-N, replacing its `user:`.")
  var users: Int?

  @Option(help: "Append every analytics event of the run to this NDJSON file.")
  var events: String?

  @Option(
    name: .customShort("e"),
    help: ArgumentHelp("Set a script variable, overriding the script's env.", valueName: "KEY=VALUE"))
  var variables: [String] = []

  func run() async throws {
    var configuration = RunConfiguration(paths: paths)
    configuration.format = format
    configuration.junitPath = junit
    configuration.dataDirectory = dataDir
    configuration.shard = shard
    configuration.includeTags = includeTags
    configuration.excludeTags = excludeTags
    configuration.users = users
    configuration.eventsPath = events
    configuration.variables = variables
    let code = await RunCommand.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}

extension RunConfiguration.Format: ExpressibleByArgument {}

struct Flows: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the registered flows with their variants and screens, the queries and the launch rules.")

  @MainActor
  func run() async throws {
    print(try FlowsListing.text(WellflowApp.makeRegistry()))
  }
}
