import ArgumentParser
import Foundation
import WellflowCore
import WellflowPreview

struct Preview: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "preview",
    abstract: "Preview the flows in a browser: a local page that renders and drives any flow and variant.",
    discussion: """
      Serves a page on 127.0.0.1 (never another address) that shows the app's current
      screen as a phone, with its labels, captions, progress and alert. Pick a flow and a
      variant and press Start (or Launch to apply the launch rules), then click the
      screen to act: buttons tap, options select, text fields enter when they lose
      focus, sliders set. Panels move the clock (to the next timer or by an amount such
      as 90m or 1d), relaunch the app, show every query's value and the events so far.
      "Copy as script" gives the steps taken as a script that `wellflow run` passes.
      The page loads nothing from the internet; the app pushes each change to it.

      Examples:
        wellflow preview                   then open http://127.0.0.1:8300
        wellflow preview --port 0 \\
          --experiments Apps/Wellflow/Experiments/checkin-length.yaml
        wellflow preview \\
          --experiments Apps/Wellflow/Experiments/checkin-length.yaml \\
          --growthbook Apps/Wellflow/Experiments/growthbook-checkin.json
        wellflow preview --locale de       the screens in German

      With --experiments or --growthbook, a flow started without a variant
      (Launch, or Start with no variant picked) gets the variant they give the
      preview's user (user-1), as in `wellflow run`, and the copied script
      names the same file.
      """)

  @Option(help: "The port to listen on (0 picks a free one).")
  var port: Int = 8300

  @Option(
    help: ArgumentHelp(
      "Experiments and declared variants from this file (their variants can be started too).",
      valueName: "FILE"))
  var experiments: String?

  @Option(
    name: .customLong("growthbook"),
    help: ArgumentHelp(
      "A GrowthBook SDK payload: its wellflow.<flow> features choose the variant of flows started without one.",
      valueName: "FILE"))
  var growthBook: String?

  @Option(help: "The language screens show in: en (the default) or de.")
  var locale: String?

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0…65535, got \(port)") }
  }

  @MainActor
  func run() async throws {
    let session: PreviewSession
    do {
      session = try PreviewSession.make(
        experimentsPath: experiments, growthBookPath: growthBook, locale: locale)
    } catch {
      StandardStreams.err("\(error)\n")
      throw ExitCode(2)
    }
    let server = PreviewServer(session: session, port: port)
    try await server.runUntilSignalled { url in
      StandardStreams.out("previewing the flows on \(url.absoluteString) (Ctrl-C stops)\n")
    }
  }
}
