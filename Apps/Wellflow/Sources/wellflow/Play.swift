import ArgumentParser
import Foundation
import WellflowCore

/// The command is its configuration: every option is declared once, in WellflowCore.
typealias Play = PlayConfiguration

extension Play: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Run one flow by hand in the terminal, in a fresh in-memory app.",
    discussion: """
      Prints the screen and reads one command a line, in the script vocabulary:
        tap continue
        select skill beginner
        select labels calm,proud      (a multiple choice takes the whole list)
        enter response slept well     (enter response "" clears it)
        set score 8
        toggle reminders true
        back, close, screen, help, quit
      Screens show each element's label beside its id, choices' options (long lists
      once per screen; `screen` lists them again), slider ranges and captions, and an
      alert's message and buttons. At a terminal, up and down walk the lines typed
      before and left, right, Home and End edit the line. A refused action prints its
      error and the prompt goes on; the exit status is then 1. When the flow ends and
      the app presents another (a check-in asking for the journal), play goes on in it;
      the session ends when no flow is left, on quit or at the end of the input, so it
      works with a pipe:

        printf 'tap continue\\ntap continue\\n' | wellflow play onboarding
      """)

  @MainActor
  public func run() async throws {
    let loaded = try sources.load()
    var configuration = self
    configuration.variant = sources.variant(variant, of: flow, in: loaded)
    // At a terminal the line editor shows the prompt and keeps a history (arrow keys);
    // from a pipe each command is echoed instead.
    let code: Int32
    if TerminalLineReader.isTerminal {
      let reader = TerminalLineReader()
      code = await PlayCommand.execute(
        configuration, sources: loaded, readLine: { reader.readLine(prompt: "> ") },
        prompt: { _ in })
    } else {
      code = await PlayCommand.execute(
        configuration, sources: loaded, readLine: { Swift.readLine(strippingNewline: true) })
    }
    if code != 0 { throw ExitCode(code) }
  }
}
