import FlowKit
import ScriptTestSupport
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
      PlayConfiguration(flow: flow, variant: variant), sources: registry.map { VariantSources(registry: $0) },
      readLine: { input.popFirst() },
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
    #expect(code == 1, "the disabled `continue` failed")
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
    #expect(code == 1)
    #expect(
      out.contains(
        "error: unknown command 'tapp' (commands: tap, select, enter, set, toggle, back, close, screen, help, quit)"
      ))
    #expect(out.contains("error: set takes an id and a number, e.g. `set score 8`"))
    #expect(out.contains("  tap ID                    press a button or an alert button"))
    #expect(out.contains("error: onboarding.welcome has no element 'nothing' (elements: continue)"))
    #expect(out.last == "left onboarding on onboarding.welcome")
  }

  /// A piped session is a check: a command that failed makes the exit status 1, however
  /// the session ends, and the commands after it still run.
  @Test func aFailedCommandExitsOneAndPlayGoesOn() async {
    let (code, out) = await play("onboarding", ["tap begin", "tap continue"])
    #expect(code == 1)
    #expect(out.contains("error: onboarding.welcome has no element 'begin' (elements: continue)"))
    #expect(out.last == "input ended; onboarding is still on onboarding.features")
    let (quitCode, quitOut) = await play("onboarding", ["select skill", "quit"])
    #expect(quitCode == 1)
    #expect(quitOut.last == "left onboarding on onboarding.welcome")
    let (endCode, _) = await play(
      "onboarding", variant: "short",
      ["tap continue", "tap nothing", "select skill beginner", "tap continue", "tap continue"])
    #expect(endCode == 1)
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
    #expect(code == 1, "input was refused while the alert was up")
    #expect(out.contains("  note: text field \"Note\" (up to 10 characters) = \"hi there\""))
    #expect(out.contains("  level: slider \"Level\" 1…10 step 1 = 8 (Level caption)"))
    #expect(out.contains("  flag: toggle \"Flag\" = on"))
    #expect(out.contains("  tags: multiple choice \"Tags\" = a \"Tag a\", c \"Tag c\""))
    #expect(out.contains("    * a  Tag a"))
    #expect(out.contains("      b  Tag b"))
    #expect(
      out.contains("error: lab.form: alert lab.confirm is up; only its buttons accept input (proceed, stay)"))
    #expect(out.last == "lab cancelled")
  }

  @Test func labelsCaptionsAndAlertMessagesShowAndLongListsAreNotRepeated() async {
    let (code, out) = await play(
      "checkin",
      [
        "tap begin", "set score 8", "tap continue", "select labels calm", "select labels calm,proud",
        "screen", "close",
      ])
    #expect(code == 0)
    #expect(out.contains("  score: slider \"How pleasant\" 1…10 step 1 = 8 (Pleasant)"))
    // The 38 labels of `emotion` and `labels` are listed when the naming screen is first
    // drawn and by `screen`; the three other redraws name them by count.
    let listed = out.filter { $0.hasPrefix("    options: ") }.count
    let named = out.filter { $0.hasPrefix("    (38 options, listed before; `screen` lists them again)") }
      .count
    #expect(listed == 4)
    #expect(named == 6)
    // Chosen options in the screen's order, which offers labels that fit the score first.
    #expect(
      out.contains {
        $0.hasPrefix("  labels: multiple choice \"Anything else?\" = ") && $0.hasSuffix("proud, calm")
      })
    #expect(out.contains { $0.hasPrefix("  alert checkin.confirmExit: \"") && $0.contains(" — ") })
    #expect(out.contains { $0.hasPrefix("    buttons: exit \"") })
  }

  @Test func playGoesOnIntoTheJournalAfterACheckInThatAsksForIt() async {
    let (code, out) = await play(
      "checkin", variant: "quick",
      ["tap continue", "select emotion calm", "tap continue", "tap journal", "close"])
    #expect(code == 0)
    #expect(
      out.contains {
        $0.hasPrefix("checkin completed; the app now presents journal (variant ")
          && $0.hasSuffix("); playing on")
      })
    #expect(out.contains { $0.hasPrefix("current screen: journal.catalog") })
    #expect(out.last == "journal cancelled")
  }

  @Test func playTakesTheVariantsAnExperimentFileDeclares() async throws {
    let workspace = Workspace()
    let file = workspace.write(
      "mini.yaml",
      """
      experiments:
        - key: checkin-mini
          flow: checkin
          variations: [full, mini]
      variants: {checkin: {mini: {steps: [sensing, acting]}}}
      """)
    var input = ["tap continue"][...]
    let out = Locked<[String]>([])
    let code = await PlayCommand.execute(
      PlayConfiguration(flow: "checkin", variant: "mini", experimentsPath: file),
      readLine: { input.popFirst() },
      console: Console(
        out: { text in out.withLock { $0.append(text) } }, err: { text in out.withLock { $0.append(text) } }))
    #expect(code == 0)
    #expect(out.current.first == "playing checkin (variant mini); type `help` for the commands")
    #expect(out.current.contains { $0.hasPrefix("current screen: checkin.sensing") })
    #expect(out.current.contains { $0.hasPrefix("current screen: checkin.acting") })
    #expect(!out.current.contains { $0.hasPrefix("error") })
  }

  /// The command line passes the files it already read: their experiments still choose
  /// the variant of a flow presented with none (as a check-in's journal is), for `--user`.
  @Test func sourcesReadByTheCommandLineChooseTheVariantsOfLaterFlows() async throws {
    let workspace = Workspace()
    let file = workspace.write(
      "mini.yaml",
      """
      experiments:
        - key: checkin-mini
          flow: checkin
          variations: [full, mini]
          weights: [0, 1]
      variants: {checkin: {mini: {steps: [sensing, acting]}}}
      """)
    let sources = try #require(
      VariantSources.load(
        experimentsPath: file, growthBookPath: nil, console: Console(out: { _ in }, err: { _ in })))
    var input = ["tap continue"][...]
    let out = Locked<[String]>([])
    var configuration = PlayConfiguration(flow: "checkin")
    configuration.sources.user = "someone-else"
    let code = await PlayCommand.execute(
      configuration, sources: sources, readLine: { input.popFirst() },
      console: Console(
        out: { text in out.withLock { $0.append(text) } }, err: { text in out.withLock { $0.append(text) } }))
    #expect(code == 0, "\(out.current)")
    // The full check-in opens on its pet screen; the experiment's mini on sensing.
    let first = out.current.first { $0.hasPrefix("current screen: ") }
    #expect(first?.hasPrefix("current screen: checkin.sensing") == true, "\(out.current)")
  }

  @Test func theLineEditorKeepsAHistoryAndEditsTheLine() {
    var buffer = LineBuffer()
    var decoder = KeyDecoder()
    func type(_ bytes: [UInt8]) -> [LineBuffer.Outcome] {
      bytes.flatMap { decoder.feed($0) }.map { buffer.apply($0) }.filter { $0 != .editing }
    }
    #expect(type(Array("tap continue\r".utf8)) == [.submitted("tap continue")])
    #expect(type(Array("set score 8\r".utf8)) == [.submitted("set score 8")])
    // Up twice reaches the first line; down once the second; left and a typed character edit it.
    #expect(type([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x41]) == [])
    #expect(buffer.line == "tap continue")
    #expect(type([0x1B, 0x5B, 0x42]) == [])
    #expect(buffer.line == "set score 8")
    #expect(type([0x7F, UInt8(ascii: "9"), 0x1B, 0x5B, 0x44, 0x1B, 0x5B, 0x33, 0x7E]) == [])
    #expect(buffer.line == "set score ")
    #expect(type([0x01] + Array("x".utf8) + [0x05] + Array("é".utf8)) == [])
    #expect(buffer.line == "xset score é")
    #expect(type([0x0D]) == [.submitted("xset score é")])
    #expect(buffer.history == ["tap continue", "set score 8", "xset score é"])
    #expect(type([0x04]) == [.ended])
  }

  @Test func anUnknownFlowIsAUsageError() async {
    let (code, out) = await play("onboardin", [])
    #expect(code == 2)
    #expect(out.first?.hasPrefix("stderr: error: no flow named 'onboardin'") == true)
  }
}
