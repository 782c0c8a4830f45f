import ArgumentParser
import Foundation
import WellflowCore

/// The command is its configuration: every option is declared once, in WellflowCore, and
/// the command adds no level of options around it.
typealias Run = RunConfiguration

extension Run: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "run",
    // Read only where `run` is parsed alone (`parsedAlone`, `Wellflow.main`): there it
    // tells ArgumentParser not to look for `--generate-completion-script`. Below
    // `wellflow`, as help, errors and completion scripts show it, the root's is read.
    _superCommandName: "wellflow",
    abstract: "Run scripts: files, or folders of *.yaml (not their subfolders), in name order.",
    discussion: """
      Every script (and every sub-script it runs) is checked before any step runs;
      problems are listed as file:line:column: message and nothing runs (exit 2).
      A sub-script (run:) is a .yaml or .yml file in the folder of the script given
      on the command line or below it (--scripts-root DIR names another folder).
      A failing step prints file:line:column:, what was expected, what was there and
      the current screen (exit 1). Each script gets a fresh app unless --data-dir is given.

      Examples:
        wellflow run Apps/Wellflow/Scripts
        wellflow run Apps/Wellflow/Scripts/onboarding-standard.yaml \\
          --format json --junit report.xml
        wellflow run Apps/Wellflow/Scripts --quiet --html report.html
        wellflow run Apps/Wellflow/Scripts --include-tags smoke --shard 1/2 \\
          -e NOTE="slept well"
        wellflow run Apps/Wellflow/Scripts/experiment-onboarding.yaml \\
          --experiments Apps/Wellflow/Experiments/onboarding-length.yaml \\
          --users 1000 --events e.ndjson

      With --experiments FILE, a flow started without a variant (by a launch
      rule, or `start` without `variant`) shows the variation GrowthBook's
      algorithm assigns the user; users outside an experiment's coverage or
      condition see the flow's default. A script's `experiments: {KEY: NAME}`
      forces a variation (and, as in GrowthBook, records no exposure).
      hashVersion defaults to 1, GrowthBook's default, so users keep their
      variation if the experiment moves to GrowthBook. The file may declare
      variants made of a flow's steps, and may declare nothing else:
        variants: {onboarding: {brief: {steps: [skill, finale]}}}

      With --growthbook FILE (a GrowthBook SDK payload, {"features": {…}}, as
      GrowthBook's API serves it unencrypted), a feature named wellflow.<flow>
      whose value is a variant name chooses that flow's variant through
      GrowthBook's feature rules (force, rollout, experiment, conditions,
      prerequisites). It wins over --experiments for its flow. Assignments are
      sticky: kept in the user's store (with --data-dir, across runs), so
      changing weights or coverage does not move a user already exposed;
      raising a rule's bucketVersion re-buckets, and minBucketVersion leaves out
      users bucketed by an older version. Sticky lookups need the rule's meta
      keys, as GrowthBook payloads carry them.

      --events FILE starts the file anew (--append adds to it instead) and
      writes each event as one JSON line, stamped `ts` in UTC to the
      millisecond. The script's clock only moves on `advance:`, so the stamps
      add a person's pace: each launch, tap, select, enter, … takes a few
      seconds (typing longer), drawn from --seed, the user and the step, so the
      same run writes the same stamps. Events of one step are a millisecond
      apart. Only the stamps move: what the app does by time is unchanged.
      --events postgres://user@host:port/db adds them to that database's events
      table instead, when the runs are done.
      """)

  public func run() async throws {
    var configuration = self
    configuration.executable = RunConfiguration.ownExecutable()
    let code = await RunCommand.execute(configuration)
    if code != 0 { throw ExitCode(code) }
  }
}
