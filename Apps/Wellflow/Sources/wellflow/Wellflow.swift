import ArgumentParser
import Foundation
import WellflowCore

@main
struct Wellflow: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "wellflow",
    abstract: "Build and test wellness-app flows headlessly: run YAML scripts against the registered flows.",
    discussion: """
      Scripts drive the app's flows without a UI, on a clock the runner
      controls, so a journey of many days runs in milliseconds. Start with:

        wellflow flows                      flows, screens and queries
        wellflow run Apps/Wellflow/Scripts  every script in a folder
        wellflow explore onboarding         check a flow's contract

      A/B-test a flow: run a script for many users with an experiment
      file, then read the funnel per variation:

        wellflow run Apps/Wellflow/Scripts/experiment-checkin.yaml \\
          --experiments Apps/Wellflow/Experiments/checkin-length.yaml \\
          --users 1000 --events e.ndjson
        wellflow report e.ndjson --experiment checkin-length
      """,
    subcommands: [
      Run.self, Report.self, Plan.self, Flows.self, Schema.self, Play.self, Preview.self, Graph.self,
      Explore.self,
      Serve.self,
      Token.self, Export.self,
    ])

  /// Usage errors exit 2, as every other "nothing ran" case does (exit 0: all passed,
  /// 1: some failed, 2: nothing ran).
  static func main() async {
    do {
      let arguments = Array(CommandLine.arguments.dropFirst())
      // A script run, what the command line starts most, skips the root's parse; anything
      // else about `run` (help, a mistake) is answered by the root as before.
      if arguments.first == "run", let run = Run.parsedAlone(Array(arguments.dropFirst())) {
        try await run.run()
        return
      }
      var command = try parseAsRoot(arguments)
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      // Help goes through the one writer too, so a full disk is told as for any output.
      if exitCode(for: error) == .success {
        let text = fullMessage(for: error)
        if !text.isEmpty { StandardStreams.out(text + "\n") }
        Foundation.exit(0)
      }
      if exitCode(for: error) == .validationFailure {
        StandardStreams.err(fullMessage(for: error) + "\n")
        Foundation.exit(2)
      }
      exit(withError: error)
    }
  }
}
