import ArgumentParser
import Foundation
import WellflowCore
import WellflowScript

struct Schema: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "schema",
    abstract: "Print a JSON Schema (draft 2020-12) of scripts or experiment files, made from the registry.",
    discussion: """
      Flow, screen, element, alert, query and option ids are enums, and every
      script command is described, so an editor that reads JSON Schemas
      (yaml-language-server, in VS Code's YAML extension) completes them and
      flags typos as you type. Save the output and name it in a script's first
      line: # yaml-language-server: $schema=wellflow-script.schema.json
      `wellflow run` still checks what a schema cannot: variables, sub-scripts,
      forced variations and variants an experiment file declares.

      Examples:
        wellflow schema
        wellflow schema --experiments
      """)

  @Flag(help: "Print the schema of experiment files (--experiments FILE) instead of scripts.")
  var experiments = false

  @MainActor
  func run() async throws {
    guard
      let sources = VariantSources.load(experimentsPath: nil, growthBookPath: nil, console: .standard)
    else { throw ExitCode(2) }
    StandardStreams.out(
      (experiments
        ? ScriptSchema.experimentFiles(sources.registry) : ScriptSchema.scripts(sources.registry)) + "\n")
  }
}
