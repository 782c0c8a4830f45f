import ArgumentParser
import Foundation
import WellflowCore

/// The command is its configuration: every option is declared once, in WellflowCore, and
/// the command adds no level of options around it.
typealias Explore = ExploreConfiguration

extension Explore: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "explore",
    abstract: "Explore every state of a flow up to a depth and check the flow contract.",
    discussion: """
      From the flow's first screen the explorer tries what each screen offers:
      every enabled button and alert button, each option of a choice (and none
      for a multiple choice), sliders at min/mid/max, text short and empty,
      toggles both ways, back and close where available, the clock moved to the
      next timer a flow scheduled, plus actions the screen must refuse (an
      element not on screen, a disabled element, anything but the alert's
      buttons while an alert is up).

      It searches breadth-first over states: a state is what the screen shows
      after settling (or the ending), explored once from the shortest sequence
      that reaches it, replayed in a fresh in-memory app. Options the flow
      cannot tell apart are one class, explored through the first of them:
      every option is tried once, and options whose screens differ only in the
      chosen value and text, and whose buttons, back and close lead to the same
      screens, are alike.

      After every step it checks: refused actions change nothing, alert buttons
      answer, the flow ends at most once, its coordinator is released after it
      ended, screen, element and alert ids are unique and declared. Each
      violation is listed with the shortest sequence that shows it, as script
      steps to paste into a script.

      Then it reports as problems every declared screen of the variant it never
      reached and a flow with no completed ending, and says whether every
      reachable state was explored or more lie beyond the depth. Progress goes
      to standard error every few seconds; --max-sequences and --max-states
      bound a run and the report says where it stopped. Exit 0 without
      violations or problems, 1 with either, 2 on usage errors.

      Examples:
        wellflow explore checkin
        wellflow explore journal --depth 5 --format json
      """)

  @MainActor
  public func run() async throws {
    let loaded = try sources.load()
    var configuration = self
    configuration.variant = sources.variant(variant, of: flow, in: loaded)
    let code = await ExploreCommand.execute(configuration, registry: loaded.registry)
    if code != 0 { throw ExitCode(code) }
  }
}
