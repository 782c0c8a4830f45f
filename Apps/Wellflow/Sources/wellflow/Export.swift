import ArgumentParser
import Foundation
import WellflowCore

/// The command is its configuration: every option is declared once, in WellflowCore.
typealias Export = ExportConfiguration

extension Export: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write a user's entries from an app data folder as CSV or JSON.",
    discussion: """
      Reads the folder `wellflow run --data-dir DIR` keeps its data in and writes the
      user's entries to standard output, oldest first.

      The columns come from the app's features: each feature that keeps data says
      what it exports (its rows' `type` and its columns), and the export writes
      `type`, `date`, then every feature's columns in the app's order, a column two
      features share once (the CSV's header line lists them). Times are ISO 8601
      with their offset (2026-03-02T08:00:00+01:00) in --timezone, which also
      places the --from and --to days (both included).

      CSV follows RFC 4180: one header line, CRLF line ends, a field with a comma, a
      quote or a line break in quotes (quotes doubled); a list (labels,
      associations) is separated by `;`. JSON is one array, an object a line,
      absent values null.

      Exit 0 when exported (an empty range too), 2 when nothing could be read (a
      missing folder, a day that is not a day, --from after --to).

      Examples:
        wellflow run Apps/Wellflow/Scripts/mood-edit.yaml --data-dir /tmp/wf
        wellflow export --data-dir /tmp/wf --user alice \\
          --from 2026-03-01 --to 2026-03-31
        wellflow export --data-dir /tmp/wf --format json > moods.json
      """)

  public func run() async throws {
    let code = await ExportCommand.execute(self, write: { StandardStreams.out($0) }, console: .standard)
    if code != 0 { throw ExitCode(code) }
  }
}
