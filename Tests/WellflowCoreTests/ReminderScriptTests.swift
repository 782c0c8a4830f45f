import FlowKit
import Foundation
import ScriptTestSupport
import Testing
import WellflowCore
import WellflowScript

@MainActor
@Suite("Scripts: reminders, notifications, follow-ups and locale")
struct ReminderScriptTests {
  let workspace = Workspace()

  private func problems(_ text: String) throws -> [String] {
    workspace.write("s.yaml", text)
    return try ScriptTestSupport.problems("s.yaml", in: workspace)
  }

  private func run(_ text: String) async throws -> ScriptResult {
    workspace.write("s.yaml", text)
    return try await runScript("s.yaml", in: workspace, registry: WellflowApp.makeRegistry())
  }

  @Test func badNotificationsLocalesAndFollowUpsAreRefusedWithTheirPositions() throws {
    #expect(
      try problems(
        """
        name: bad
        locale: fr
        followUps:
          - after: mood.lg
            when: {mood.latest.scor: 3}
            present: {flow: journal}
          - after: mood.log
            colour: red
        steps:
          - open: checkin.remindr
          - expect: {notification: reminder}
        """) == [
          "s.yaml:2:9: unknown locale 'fr' (locales: en, de)",
          "s.yaml:4:12: unknown flow 'mood.lg' (did you mean 'mood.log'?)",
          "s.yaml:5:12: unknown query 'mood.latest.scor' (did you mean 'mood.latest.score'?)",
          "s.yaml:8:5: unknown key 'colour' in follow-up",
          "s.yaml:7:5: a follow-up needs `present` (the flow to offer)",
          "s.yaml:10:11: unknown notification 'checkin.remindr' (did you mean 'checkin.reminder'?) (notifications: checkin.reminder)",
          "s.yaml:11:28: unknown notification 'reminder' (notifications: checkin.reminder)",
        ])
  }

  @Test func openWithNothingDeliveredFailsWithAMessage() async throws {
    let result = try await run(
      """
      name: nothing to open
      steps:
        - launch
        - open: checkin.reminder
      """)
    #expect(
      result.failure?.headline
        == "\(workspace.path("s.yaml")):4:5: open failed: no checkin.reminder notification is delivered and unopened"
    )
  }

  @Test func expectNotificationSaysWhatWasThere() async throws {
    let result = try await run(
      """
      name: expecting a reminder that never came
      start: 2026-03-02T08:00
      steps:
        - launch
        - expect: {notification: null}
        - start: reminders
        - toggle: {enabled: true}
        - tap: save
        - advance: 1h
        - expect: {notification: checkin.reminder}
      """)
    #expect(
      result.failure?.headline
        == "\(workspace.path("s.yaml")):10:5: expect failed: no checkin.reminder notification is delivered and unopened"
    )
  }

  @Test func theExampleScriptsPass() async throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Apps/Wellflow/Scripts")
    let outcome = await wellflowRun(
      [
        "reminders-daily.yaml", "reminders-skipped-when-logged.yaml", "context-checkin-low-mood.yaml",
        "locale-de.yaml",
      ]
      .map { folder.appendingPathComponent($0).path })
    #expect(outcome.code == 0, "\(outcome.outText)\n\(outcome.errText)")
  }

  @Test func aFollowUpPresentsItsFlowWithTriggerEvent() async throws {
    let events = InMemoryAnalyticsSink()
    workspace.write(
      "s.yaml",
      """
      name: low mood, then the journal
      followUps:
        - after: mood.log
          when: {mood.latest.score: {max: 3}}
          present: journal
      steps:
        - launch
        - start: mood.log
        - set: {score: 3}
        - tap: save
        - expect: {screen: journal.catalog}
      """)
    let result = try await runScript(
      "s.yaml", in: workspace, registry: WellflowApp.makeRegistry(),
      options: ScriptRunner.Options(analytics: events))
    #expect(result.passed, "\(String(describing: result.failure))")
    let started = events.events.last { $0.event == "flow_started" }
    #expect(started?.flow == "journal")
    #expect(started?.fields["trigger"] == .string("event"))
  }

  @Test func anExperimentFileMayDeclareFollowUps() async throws {
    let rules = workspace.write(
      "app.yaml",
      """
      followUps:
        - after: mood.log
          when: {mood.latest.score: {max: 3}}
          present: {flow: checkin, variant: quick}
      """)
    let script = workspace.write(
      "s.yaml",
      """
      name: low mood, then a quick check-in
      steps:
        - start: mood.log
        - set: {score: 1}
        - tap: save
        - expect: {flow: checkin, screen: checkin.sensing}
      """)
    let outcome = await wellflowRun([script]) { $0.experimentsPath = rules }
    #expect(outcome.code == 0, "\(outcome.outText)\n\(outcome.errText)")
    let without = await wellflowRun([script])
    #expect(without.code == 1, "no rule is active unless declared")
    workspace.write("bad.yaml", "followUps:\n  - after: mood.log\n    present: diary\n")
    let bad = await wellflowRun([script]) { $0.experimentsPath = workspace.path("bad.yaml") }
    #expect(bad.code == 2)
    #expect(bad.errText.contains("bad.yaml:3:14: unknown flow 'diary'"), "\(bad.errText)")
  }

  @Test func germanAndEnglishRunTheSameScriptIds() async throws {
    for locale in ["en", "de"] {
      let result = try await run(
        """
        name: ids in \(locale)
        locale: \(locale)
        steps:
          - start: reminders
          - expect: {screen: reminders.settings, value: {enabled: false, time: "20:00"}, enabled: save}
          - tap: save
          - expect: {idle: true, data: {reminders.enabled: false}}
        """)
      #expect(result.passed, "\(locale): \(String(describing: result.failure))")
    }
  }
}

@Suite("Screen dumps carry accessibility")
struct ScreenDumpTests {
  @Test func aDumpHasLabelsValueTextsAndHidesTypedText() throws {
    let screen = Screen(
      id: "mood.log", title: "Log your mood",
      elements: [
        .slider("score", "Mood", range: 1...10, step: 1, value: 7, caption: "Slightly Pleasant"),
        .text("notes", "Notes", limit: 500, text: "slept well"),
      ])
    let json = ScreenDump.json(screen)
    #expect(json.contains(#""accessibilityValue":"7, Slightly Pleasant""#))
    #expect(json.contains(#""accessibilityLabel":"Notes""#))
    #expect(!json.contains("slept well"))
    #expect(json.contains("text field, 10 characters"))
    #expect(ScreenDump.json(screen, showingTypedText: true).contains("slept well"))
  }
}
