import FlowKit
import Testing

@Suite("Screen.validate")
struct ScreenValidationTests {
  let screen = Screen(
    id: "test.form", title: "Form",
    elements: [
      .button("go", "Go"),
      .button("off", "Off", enabled: false),
      .singleChoice(
        "one", "One", options: [ChoiceOption(id: "a", label: "A"), ChoiceOption(id: "b", label: "B")],
        selected: nil),
      .multipleChoice(
        "many", "Many", options: [ChoiceOption(id: "1", label: "One"), ChoiceOption(id: "2", label: "Two")],
        selected: []),
      .text("note", "Note", limit: 5, text: ""),
      .slider("score", "Score", range: 1...10, step: 1, value: 5),
      .slider("half", "Half", range: 0...2, step: 0.5, value: 0),
      .toggle("flag", "Flag", isOn: false),
      .info("avg", "Average", value: .number(3)),
    ])

  private func message(_ action: UserAction, on screen: Screen? = nil) -> String? {
    do {
      try (screen ?? self.screen).validate(action)
      return nil
    } catch {
      return error.description
    }
  }

  @Test func actionsThatFitTheScreenPass() {
    #expect(message(.tap("go")) == nil)
    #expect(message(.select("one", ["b"])) == nil)
    #expect(message(.select("many", [])) == nil)
    #expect(message(.select("many", ["1", "2"])) == nil)
    #expect(message(.enter("note", "12345")) == nil)
    #expect(message(.set("score", 10)) == nil)
    #expect(message(.set("half", 1.5)) == nil)
    #expect(message(.toggle("flag", true)) == nil)
  }

  @Test func unknownElement() {
    #expect(
      message(.tap("nope"))
        == "test.form has no element 'nope' (elements: go, off, one, many, note, score, half, flag, avg)")
  }

  @Test func disabledElement() {
    #expect(message(.tap("off")) == "test.form: 'off' is disabled")
  }

  @Test func wrongKind() {
    #expect(message(.select("go", ["a"])) == "test.form: cannot select 'go', it is a button")
    #expect(message(.enter("score", "3")) == "test.form: cannot enter 'score', it is a slider")
    #expect(message(.set("flag", 1)) == "test.form: cannot set 'flag', it is a toggle")
    #expect(message(.toggle("one", true)) == "test.form: cannot toggle 'one', it is a single choice")
    #expect(message(.tap("many")) == "test.form: cannot tap 'many', it is a multiple choice")
    #expect(message(.tap("note")) == "test.form: cannot tap 'note', it is a text field")
    #expect(message(.tap("avg")) == "test.form: cannot tap 'avg', it is an info")
  }

  @Test func unknownOption() {
    #expect(message(.select("one", ["c"])) == "test.form: 'one' has no option 'c' (options: a, b)")
    #expect(message(.select("many", ["1", "3"])) == "test.form: 'many' has no option '3' (options: 1, 2)")
  }

  @Test func singleChoiceGivenTwo() {
    #expect(
      message(.select("one", ["a", "b"]))
        == "test.form: 'one' is a single choice and takes one option, got 2")
    #expect(message(.select("one", [])) == "test.form: 'one' is a single choice and takes one option, got 0")
  }

  @Test func textTooLong() {
    #expect(message(.enter("note", "123456")) == "test.form: 'note' takes at most 5 characters, got 6")
  }

  /// A store would keep only the text before it.
  @Test func textWithANULIsRefused() {
    #expect(
      message(.enter("note", "ab\u{0}c"))
        == "test.form: 'note' takes no NUL character (U+0000), got one at character 3")
    #expect(message(.enter("note", "a\u{1B}\tb")) == nil)
  }

  @Test func sliderOutOfRangeAndOffStep() {
    #expect(message(.set("score", 11)) == "test.form: 'score' goes from 1 to 10, got 11")
    #expect(message(.set("score", 0)) == "test.form: 'score' goes from 1 to 10, got 0")
    #expect(message(.set("score", 2.5)) == "test.form: 'score' moves in steps of 1, got 2.5")
    #expect(message(.set("half", 0.75)) == "test.form: 'half' moves in steps of 0.5, got 0.75")
  }

  @Test func alertUpRefusesEverythingButItsButtons() {
    var withAlert = screen
    withAlert.canGoBack = true
    withAlert.canClose = true
    withAlert.alert = Alert(
      id: "test.confirm", title: "Sure?", message: "Really",
      buttons: [AlertButton(id: "exit", label: "Exit"), AlertButton(id: "stay", label: "Stay")])
    let refused = "alert test.confirm is up; only its buttons accept input (exit, stay)"
    #expect(message(.select("one", ["a"]), on: withAlert) == "test.form: \(refused)")
    #expect(message(.back, on: withAlert) == "test.form: \(refused)")
    #expect(message(.close, on: withAlert) == "test.form: \(refused)")
    #expect(
      message(.tap("go"), on: withAlert)
        == "test.form: alert test.confirm has no button 'go' (buttons: exit, stay)")
    #expect(message(.tap("stay"), on: withAlert) == nil)
  }

  @Test func backAndCloseWhereUnavailable() {
    #expect(message(.back) == "test.form: back is not available here")
    #expect(message(.close) == "test.form: close is not available here")
    var open = screen
    open.canGoBack = true
    open.canClose = true
    #expect(message(.back, on: open) == nil)
    #expect(message(.close, on: open) == nil)
  }

  @Test func typedErrorsNameScreenElementAndProblem() throws {
    let error = try #require(throws: ActionError.self) { try screen.validate(.set("score", 12)) }
    #expect(error == ActionError(screen: "test.form", element: "score", problem: .outOfRange(12, 1...10)))
  }

  @Test func enterDescriptionLeavesTheTextOut() {
    #expect(UserAction.enter("note", "private words").description == "enter note: 13 characters")
  }
}
