import FlowKit
import FlowKitTesting
import Testing

@Suite("Steps in the script vocabulary")
struct StepTextTests {
  @Test(arguments: [
    ("tap continue", UserAction.tap("continue")),
    ("select skill beginner", .select("skill", ["beginner"])),
    ("select labels calm, proud", .select("labels", ["calm", "proud"])),
    ("select labels", .select("labels", [])),
    ("enter notes slept well", .enter("notes", "slept well")),
    ("enter notes \"\"", .enter("notes", "")),
    ("enter notes \"  spaced  \"", .enter("notes", "  spaced  ")),
    ("set score 8", .set("score", 8)),
    ("set score 2.5", .set("score", 2.5)),
    ("toggle breathed true", .toggle("breathed", true)),
    ("toggle breathed off", .toggle("breathed", false)),
    ("  back  ", .back),
    ("close", .close),
  ])
  func aStepReadsAsItsAction(step: String, action: UserAction) throws {
    #expect(try UserAction(step: step) == action)
  }

  @Test(arguments: [
    (
      "tapp continue",
      "step `tapp continue`: unknown command 'tapp' (commands: tap, select, enter, set, toggle, back, close)"
    ),
    ("tap", "step `tap`: 'tap' takes one id, e.g. `tap continue`"),
    ("tap a b", "step `tap a b`: 'tap' takes one id, e.g. `tap continue`"),
    ("set score high", "step `set score high`: 'set' takes an id and a number, e.g. `set score 8`"),
    (
      "toggle flag maybe",
      "step `toggle flag maybe`: 'toggle' takes an id and true or false, e.g. `toggle reminders true`"
    ),
    ("back now", "step `back now`: 'back' takes nothing, e.g. `back`"),
    ("", "step ``: an empty step"),
  ])
  func aMalformedStepSaysHowTheCommandGoes(step: String, message: String) {
    #expect(throws: FlowTestError.self) { try UserAction(step: step) }
    do {
      _ = try UserAction(step: step)
    } catch {
      #expect(error.description == message)
    }
  }

  @Test func severalLinesSkipBlanksAndComments() throws {
    let steps = try UserAction.steps(
      """
      # onboarding, short
      tap continue

      select skill beginner
      """)
    #expect(steps.map(\.step) == ["tap continue", "select skill beginner"])
    #expect(steps.map(\.action) == [.tap("continue"), .select("skill", ["beginner"])])
  }
}
