import ArgumentParser
import Foundation
import WellflowCore

/// The command is its configuration: every option is declared once, in WellflowCore.
typealias Report = ReportConfiguration

extension Report: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Print an experiment's funnel per variation from an events file.",
    discussion: """
      Reads the NDJSON events of `wellflow run --events FILE`. A user belongs to the
      variation of their first experiment_viewed event; their first run of the
      experiment's flow after it decides their outcome. Per variation:

        exposed          users with experiment_viewed
        started          exposed users who then started the flow
        completed, cancelled (by the person), terminated (ended by the host, e.g. a
                         failed script), abandoned (started but never ended)
        median steps     screens viewed in completed runs (median)
        top exit screen  the screen where most users who did not complete left

      Then each rate, completion (completed / started) first and the metrics the
      experiment file lists under `metrics:` (a share of exposed users: an event,
      optionally on a screen or in a flow, after exposure; or returned_next_day),
      with its 95% Wilson interval, the difference from the control, the p-value of
      a two-proportion z-test Holm-corrected across the variations, and the chance
      to beat control (Beta(1, 1) priors).

      The exposures are checked against the weights (chi-square; equal weights
      without --experiments): below p 0.001 the report starts with `sample ratio
      mismatch` and marks the results untrustworthy. A user exposed in two runs
      (their events go back in time, as after `wellflow run --append`) counts in
      the first, and the report starts by saying how many there are. Events
      written by `wellflow run` carry source: script, and the report then says
      they are simulated. Text output escapes control characters in names from
      the events file and clips them to 64 characters.

      The first variation is the control: the first in the experiment file given with
      --experiments, otherwise the one exposures number 0.

      Each non-control variation also gets its difference to the control in points
      and relative, each with a 95% interval, and one verdict line on completion
      (quick beats full on completion: +44.1 pp [41.8, 46.4]); p-values below 0.001
      print as < 0.001. The points' interval is Newcombe's hybrid score interval.
      A metric with `value: FIELD` is a mean per user (Welch's t-test); one with
      `guardrail: true` is named first when it got worse (`lowerIsBetter: true`:
      when it rose). The relative interval is made on the log of the ratio, so it
      never passes -100%. --sequential (or
      `sequential: true` in the file) makes intervals and p-values always valid
      (GrowthBook's sequential test); `covariate: {event, value}` adjusts by the
      sum of a field over each user's events before exposure (CUPED). The file is
      read once, a block at a time.

      Exit 0 with a report; 2 when the file cannot be read, a line is not an event
      (file:line: message) or no exposure names the experiment. A last line without
      a line end that is not an event (a file cut short) is a warning: it is left
      out and the rest counted.

      Example:
        wellflow report e.ndjson --experiment onboarding-length --format json
      """)

  @MainActor
  public func run() async throws {
    let code = await ReportFromPostgres.execute(self)
    if code != 0 { throw ExitCode(code) }
  }
}
