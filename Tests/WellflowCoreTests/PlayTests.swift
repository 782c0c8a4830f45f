import FlowKit
import Testing
import WellflowCore

@MainActor
@Suite("wellflow play")
struct PlayTests {
  func play(_ flow: String, variant: String? = nil, _ lines: [String], registry: FlowRegistry? = nil) async
    -> (
      Int32, [String]
    )
  {
    var input = lines[...]
    let out = Locked<[String]>([])
    let code = await PlayCommand.execute(
      PlayConfiguration(flow: flow, variant: variant), registry: registry, readLine: { input.popFirst() },
      console: Console(
        out: { text in
          out.withLock {
            $0 += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
          }
        },
        err: { text in out.withLock { $0.append("stderr: " + text) } }))
    return (code, out.current)
  }

  @Test func aPipedSessionPlaysOnboardingToTheEnd() async {
    let (code, out) = await play(
      "onboarding", variant: "short",
      [
        "tap continue", "tap continue", "", "# choose", "select skill experienced", "tap continue",
        "tap continue",
      ])
    #expect(code == 0)
    #expect(out.first == "playing onboarding (variant short); type `help` for the commands")
    #expect(
      out.filter { $0.hasPrefix(">") || $0.hasPrefix("error") || $0.hasPrefix("current screen") }.map {
        $0.components(separatedBy: " \"").first!
      } == [
        "current screen: onboarding.welcome",
        "> tap continue",
        "current screen: onboarding.skill",
        "> tap continue",
        "error: onboarding.skill: 'continue' is disabled",
        "> select skill experienced",
        "current screen: onboarding.skill",
        "> tap continue",
        "current screen: onboarding.finale",
        "> tap continue",
      ])
    #expect(out.last == "onboarding completed")
  }

  @Test func badCommandsPrintAnErrorAndThePromptGoesOn() async {
    let (code, out) = await play(
      "onboarding", ["tapp continue", "set", "help", "tap nothing", "quit", "tap continue"])
    #expect(code == 0)
    #expect(
      out.contains(
        "error: unknown command 'tapp' (commands: tap, select, enter, set, toggle, back, close, screen, help, quit)"
      ))
    #expect(out.contains("error: set takes an id and a number, e.g. `set score 8`"))
    #expect(out.contains("  tap ID                    press a button or an alert button"))
    #expect(out.contains("error: onboarding.welcome has no element 'nothing' (elements: continue)"))
    #expect(out.last == "left onboarding on onboarding.welcome")
  }

  @Test func theEndOfTheInputLeavesTheFlowRunning() async {
    let (code, out) = await play("onboarding", ["tap continue"])
    #expect(code == 0)
    #expect(out.last == "input ended; onboarding is still on onboarding.features")
  }

  @Test func everyInputKindAndCloseInTheLabFlow() async throws {
    let (code, out) = await play(
      "lab",
      [
        "enter note hi there", "set level 8", "toggle flag true", "select tags c, a", "tap ask", "back",
        "tap stay", "close",
      ],
      registry: try LabFeature.registry())
    #expect(code == 0)
    #expect(out.contains("  note: text field = \"hi there\""))
    #expect(out.contains("  level: slider = 8"))
    #expect(out.contains("  flag: toggle = true"))
    #expect(out.contains("  tags: multiple choice = [c, a] (options: a, b, c)"))
    #expect(
      out.contains("error: lab.form: alert lab.confirm is up; only its buttons accept input (proceed, stay)"))
    #expect(out.last == "lab cancelled")
  }

  @Test func anUnknownFlowIsAUsageError() async {
    let (code, out) = await play("onboardin", [])
    #expect(code == 2)
    #expect(out.first?.hasPrefix("stderr: error: no flow named 'onboardin'") == true)
  }

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
