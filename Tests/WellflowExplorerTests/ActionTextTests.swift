import FlowKit
import Testing
import WellflowExplorer

/// Actions as the lines `wellflow play` reads, both ways.
@Suite("Actions as text")
struct ActionTextTests {
  @Test func linesParseInTheScriptVocabulary() {
    #expect(PlayInput.parse("tap continue") == .success(.action(.tap("continue"))))
    #expect(
      PlayInput.parse("  select labels calm, proud ")
        == .success(.action(.select("labels", ["calm", "proud"]))))
    #expect(PlayInput.parse("select labels") == .success(.action(.select("labels", []))))
    #expect(
      PlayInput.parse("enter response  slept  well") == .success(.action(.enter("response", "slept  well"))))
    #expect(PlayInput.parse("enter response \"\"") == .success(.action(.enter("response", ""))))
    #expect(PlayInput.parse("set score 8") == .success(.action(.set("score", 8))))
    #expect(PlayInput.parse("toggle reminders false") == .success(.action(.toggle("reminders", false))))
    #expect(PlayInput.parse("back") == .success(.action(.back)))
    #expect(PlayInput.parse("close") == .success(.action(.close)))
    #expect(PlayInput.parse("quit") == .success(.quit))
    #expect(
      PlayInput.parse("set score high")
        == .failure(PlayInputError(message: "set takes an id and a number, e.g. `set score 8`")))
    #expect(
      PlayInput.parse("tap a b") == .failure(PlayInputError(message: "tap takes one id, e.g. `tap continue`"))
    )
  }

  @Test func commandsReadBackAsTheActionsTheyName() {
    let actions: [UserAction] = [
      .tap("continue"), .select("labels", ["calm", "proud"]), .select("labels", []),
      .enter("response", "slept well"),
      .enter("response", ""), .set("score", 8), .toggle("x", true), .back, .close,
    ]
    for action in actions {
      #expect(PlayInput.parse(action.command) == .success(.action(action)), "\(action.command)")
    }
  }
}
