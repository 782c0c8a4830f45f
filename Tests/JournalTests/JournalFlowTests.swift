import FlowKit
import Foundation
import Journal
import Testing

@MainActor
@Suite("Journal flow transitions")
struct JournalFlowTests {
  @Test func startsIdleOnTheFirstFeelingLayer() throws {
    let harness = try Harness()
    let screen = harness.screen
    #expect(screen.id == "journal.catalog")
    #expect(screen.alert == nil)
    #expect(screen.elements.map(\.id) == ["layer", "phase", "entry", "close"])
    #expect(screen.element("layer")?.value == .text("1"))
    #expect(screen.element("phase")?.value == .text("1"))
    guard case .choice(let options, false) = screen.element("entry")?.kind else {
      Issue.record("entry is not a single choice")
      return
    }
    #expect(options.map(\.id) == ["1", "2"])
    #expect(screen.canClose)
    #expect(try harness.running.flowState == .idle)
  }

  @Test func layerAndPhaseChangeTheEntriesOffered() async throws {
    let harness = try Harness()
    try await harness.select("layer", 3)
    try await harness.select("phase", 2)
    let catalog = try bundledCatalog()
    guard case .choice(let options, _) = harness.screen.element("entry")?.kind else {
      Issue.record("no entry choice")
      return
    }
    #expect(options.map(\.id) == catalog.entries(layer: 3, phase: 2).map { String($0.id) })
  }

  @Test func layerZeroShowsStrategiesDisabledUntilSelfCareIsChosen() async throws {
    let harness = try Harness()
    try await harness.select("layer", 0)
    #expect(harness.screen.element("entry") == nil)
    #expect(harness.screen.element("strategy")?.isEnabled == false)
    #expect(
      await harness.refusal(.select("strategy", ["1"])) == "journal.catalog: 'strategy' is disabled")
  }

  @Test func selectingAnEntryAsksToConfirmThePrimaryAndSavesNothingYet() async throws {
    let harness = try Harness()
    try await harness.select("entry", 2)
    #expect(harness.alertID == "journal.confirmPrimary")
    #expect(harness.screen.alert?.buttons.map(\.id) == ["confirm", "cancel"])
    #expect(harness.screen.element("entry")?.value == .text("2"))
    #expect(harness.repository.entries.isEmpty)
  }

  @Test func cancellingThePrimaryReturnsToIdleWithNothingSaved() async throws {
    let harness = try Harness()
    try await harness.select("entry", 1)
    try await harness.tap("cancel")
    #expect(harness.alertID == nil)
    #expect(try harness.running.flowState == .idle)
    #expect(harness.screen.element("entry")?.value == ElementValue.none)
    #expect(harness.repository.entries.isEmpty)
  }

  @Test func confirmingThePrimarySavesTheEntryThenAsksForASecondary() async throws {
    let harness = try Harness()
    harness.clock.advance(by: 90)
    try await harness.confirmPrimary(2)
    #expect(harness.alertID == "journal.askSecondary")
    #expect(harness.screen.alert?.buttons.map(\.id) == ["accept", "decline"])
    let saved = try #require(harness.repository.entries.first)
    #expect(harness.repository.entries.count == 1)
    #expect(saved.primary == 2)
    #expect(saved.secondary == nil)
    #expect(saved.userID == "user-1")
    #expect(saved.createdAt == startDate.addingTimeInterval(90))
    #expect(saved.initiatedBy == .self)
    #expect(harness.repository.outbox.isEmpty)
    #expect(harness.presentationClock.recorded == [JournalFlowCoordinator.alertDismissalSeconds])
  }

  @Test func whileSavingEveryInputIsDisabled() async throws {
    let harness = try Harness()
    try await harness.select("entry", 1)
    let flow = try harness.running
    try flow.send(.tap("confirm"))
    #expect(flow.isBusy)
    #expect(harness.screen.alert == nil)
    #expect(harness.screen.message == "Saving…")
    #expect(harness.screen.elements.allSatisfy { !$0.isEnabled })
    #expect(throws: ActionError(screen: "journal.catalog", element: "layer", problem: .disabled)) {
      try flow.send(.select("layer", ["2"]))
    }
    #expect(throws: ActionError(screen: "journal.catalog", problem: .closeUnavailable)) {
      try flow.send(.close)
    }
    await harness.work.settle()
    #expect(harness.alertID == "journal.askSecondary")
  }

  @Test func decliningBothQuestionsShowsSuccessAndOkCompletesWithThePrimaryOnly() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("decline")
    #expect(harness.alertID == "journal.askSelfCare")
    try await harness.tap("decline")
    #expect(harness.alertID == "journal.success")
    #expect(harness.screen.alert?.buttons.map(\.id) == ["ok"])
    try await harness.tap("ok")
    let entry = try #require(harness.completedEntry)
    #expect(entry.primary == 1)
    #expect(entry.secondary == nil)
    #expect(entry.strategy == nil)
    #expect(harness.repository.outbox == [entry])
    #expect(harness.flow == nil)
    let logged = harness.analytics.events.filter { $0.event == "journal_logged" }
    #expect(logged.count == 1)
    #expect(logged.first?.flow == "journal")
    #expect(logged.first?.user == "user-1")
    #expect(logged.first?.ts == startDate)
    #expect(logged.first?.fields["primary"] == .number(1))
    #expect(logged.first?.fields["secondary"] == nil)
  }

  @Test func acceptingTheSecondaryLetsThePersonChooseAnotherEntry() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("accept")
    #expect(harness.alertID == nil)
    #expect(try harness.running.flowState == .selectingSecondary)
    try await harness.select("layer", 4)
    try await harness.select("entry", 38)
    #expect(harness.alertID == "journal.confirmSecondary")
    #expect(harness.screen.alert?.buttons.map(\.id) == ["confirm", "cancel"])
    try await harness.tap("confirm")
    #expect(harness.alertID == "journal.askSelfCare")
    #expect(harness.repository.entries.map(\.secondary) == [38])
    #expect(harness.repository.entries.count == 1)
  }

  @Test func cancellingTheSecondaryKeepsChoosingIt() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("accept")
    try await harness.select("entry", 2)
    try await harness.tap("cancel")
    #expect(harness.alertID == nil)
    #expect(try harness.running.flowState == .selectingSecondary)
    #expect(harness.repository.entries.map(\.secondary) == [nil])
  }

  @Test func strategiesAreDisabledWhileChoosingTheSecondary() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("accept")
    try await harness.select("layer", 0)
    #expect(harness.screen.element("strategy")?.isEnabled == false)
    #expect(
      await harness.refusal(.select("strategy", ["3"])) == "journal.catalog: 'strategy' is disabled")
    #expect(harness.alertID == nil)
  }

  @Test func thePrimaryCannotAlsoBeTheSecondary() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("accept")
    #expect(
      await harness.refusal(.select("entry", ["1"]))
        == "journal.catalog: entry 1 is already your first feeling; choose a different one")
    #expect(harness.alertID == nil)
  }

  @Test func acceptingSelfCareMovesToLayerZeroByItself() async throws {
    let harness = try Harness()
    try await harness.select("layer", 5)
    try await harness.select("entry", 49)
    try await harness.tap("confirm")
    try await harness.tap("decline")
    #expect(harness.screen.element("layer")?.value == .text("5"))
    try await harness.tap("accept")
    let flow = try harness.running
    #expect(flow.flowState == .selectingStrategy)
    #expect(flow.layer == 0)
    #expect(harness.screen.element("layer")?.value == .text("0"))
    #expect(harness.screen.element("layer")?.isEnabled == false)
    #expect(harness.screen.element("phase")?.isEnabled == false)
    #expect(harness.screen.element("strategy")?.isEnabled == true)
    #expect(await harness.refusal(.select("layer", ["2"])) == "journal.catalog: 'layer' is disabled")
  }

  @Test func cancellingTheStrategyStaysOnLayerZero() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("decline")
    try await harness.tap("accept")
    try await harness.select("strategy", 4)
    #expect(harness.alertID == "journal.confirmStrategy")
    #expect(harness.screen.alert?.buttons.map(\.id) == ["confirm", "cancel"])
    #expect(harness.screen.element("strategy")?.value == .text("4"))
    try await harness.tap("cancel")
    let flow = try harness.running
    #expect(harness.alertID == nil)
    #expect(flow.flowState == .selectingStrategy)
    #expect(flow.layer == 0)
  }

  @Test func theFullPathLogsPrimarySecondaryAndStrategy() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(2)
    try await harness.tap("accept")
    try await harness.select("phase", 3)
    try await harness.select("entry", 5)
    try await harness.tap("confirm")
    try await harness.tap("accept")
    try await harness.select("strategy", 7)
    try await harness.tap("confirm")
    #expect(harness.alertID == "journal.success")
    #expect(harness.repository.outbox.isEmpty)
    try await harness.tap("ok")
    let entry = try #require(harness.completedEntry)
    #expect([entry.primary, entry.secondary, entry.strategy] == [2, 5, 7])
    #expect(harness.repository.entries == [entry])
    #expect(harness.repository.outbox == [entry])
    #expect(harness.flow == nil)
    let logged = try #require(harness.analytics.events.first { $0.event == "journal_logged" })
    #expect(logged.fields["secondary"] == .number(5))
    #expect(logged.fields["strategy"] == .number(7))
    #expect(logged.fields["initiated_by"] == .string("self"))
  }

  @Test func closeWithoutAPrimaryCancelsAndKeepsNothing() async throws {
    for action in [UserAction.close, .tap("close")] {
      let harness = try Harness()
      try await harness.select("entry", 1)
      try await harness.tap("cancel")
      try await harness.send(action)
      #expect(harness.wasCancelled)
      #expect(harness.repository.entries.isEmpty)
      #expect(harness.repository.outbox.isEmpty)
      #expect(harness.analytics.events.isEmpty)
      #expect(harness.flow == nil)
    }
  }

  @Test func closeWhileChoosingTheSecondaryCompletesAndQueuesThePrimary() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("accept")
    try await harness.send(.close)
    let entry = try #require(harness.completedEntry)
    #expect(entry.primary == 1)
    #expect(entry.secondary == nil)
    #expect(harness.repository.outbox == [entry])
    #expect(harness.flow == nil)
  }

  @Test func closeWhileChoosingTheStrategyCompletesWithTheSecondary() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("accept")
    try await harness.select("entry", 2)
    try await harness.tap("confirm")
    try await harness.tap("accept")
    try await harness.tap("close")
    let entry = try #require(harness.completedEntry)
    #expect(entry.secondary == 2)
    #expect(entry.strategy == nil)
    #expect(harness.repository.outbox == [entry])
  }

  @Test func inputOtherThanTheAlertsButtonsIsRefusedNamingTheAlert() async throws {
    let harness = try Harness()
    try await harness.select("entry", 1)
    let expected =
      "journal.catalog: alert journal.confirmPrimary is up; only its buttons accept input (confirm, cancel)"
    #expect(await harness.refusal(.select("layer", ["3"])) == expected)
    #expect(await harness.refusal(.select("entry", ["2"])) == expected)
    #expect(await harness.refusal(.close) == expected)
    #expect(
      await harness.refusal(.tap("ok"))
        == "journal.catalog: alert journal.confirmPrimary has no button 'ok' (buttons: confirm, cancel)")
    #expect(
      await harness.refusal(.tap("close"))
        == "journal.catalog: alert journal.confirmPrimary has no button 'close' (buttons: confirm, cancel)")
    #expect(harness.screen.element("layer")?.value == .text("1"))
    #expect(harness.alertID == "journal.confirmPrimary")

    try await harness.tap("confirm")
    #expect(
      await harness.refusal(.select("phase", ["2"]))
        == "journal.catalog: alert journal.askSecondary is up; only its buttons accept input (accept, decline)"
    )
    try await harness.tap("decline")
    #expect(
      await harness.refusal(.close)
        == "journal.catalog: alert journal.askSelfCare is up; only its buttons accept input (accept, decline)"
    )
    try await harness.tap("decline")
    #expect(
      await harness.refusal(.tap("confirm"))
        == "journal.catalog: alert journal.success has no button 'confirm' (buttons: ok)")
    #expect(harness.screen.element("phase")?.value == .text("1"))
  }

  @Test func aFailedPrimarySaveShowsTheErrorAndReturnsToIdle() async throws {
    let harness = try Harness()
    harness.repository.setFailure(.storageFailed("the disk is full"))
    try await harness.confirmPrimary(1)
    #expect(harness.alertID == "journal.error")
    #expect(harness.screen.alert?.message == "The entry could not be saved: the disk is full")
    #expect(harness.screen.alert?.buttons.map(\.id) == ["ok"])
    try await harness.tap("ok")
    let flow = try harness.running
    #expect(harness.alertID == nil)
    #expect(flow.flowState == .idle)
    #expect(flow.entry == nil)
    try await harness.send(.close)
    #expect(harness.wasCancelled)
  }

  @Test func aFailedSecondarySaveKeepsChoosingTheSecondary() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("accept")
    harness.repository.setFailure(.storageFailed("locked"))
    try await harness.select("entry", 2)
    try await harness.tap("confirm")
    #expect(harness.alertID == "journal.error")
    try await harness.tap("ok")
    let flow = try harness.running
    #expect(flow.flowState == .selectingSecondary)
    #expect(flow.entry?.secondary == nil)
    #expect(harness.repository.entries.map(\.secondary) == [nil])
  }

  @Test func aFailedStrategySaveKeepsChoosingTheStrategyOnLayerZero() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("decline")
    try await harness.tap("accept")
    harness.repository.setFailure(.storageFailed("locked"))
    try await harness.select("strategy", 1)
    try await harness.tap("confirm")
    #expect(harness.alertID == "journal.error")
    try await harness.tap("ok")
    let flow = try harness.running
    #expect(flow.flowState == .selectingStrategy)
    #expect(flow.layer == 0)
    #expect(flow.entry?.strategy == nil)
  }

  @Test func aFailedQueueingShowsTheErrorThenCompletesWithTheEntryKept() async throws {
    let harness = try Harness()
    try await harness.confirmPrimary(1)
    try await harness.tap("decline")
    try await harness.tap("decline")
    harness.repository.setFailure(.storageFailed("locked"))
    try await harness.tap("ok")
    #expect(harness.alertID == "journal.error")
    #expect(harness.endings.isEmpty)
    try await harness.tap("ok")
    #expect(harness.completedEntry?.primary == 1)
    #expect(harness.repository.entries.count == 1)
    #expect(harness.repository.outbox.isEmpty)
    #expect(harness.flow == nil)
  }

  @Test func withoutASignedInUserNothingIsSaved() async throws {
    let harness = try Harness(userID: nil)
    try await harness.confirmPrimary(1)
    #expect(harness.alertID == "journal.error")
    #expect(harness.screen.alert?.message == "Sign in to keep a journal.")
    #expect(harness.repository.entries.isEmpty)
  }

  @Test func aNotificationMakesTheEntryScheduled() async throws {
    let harness = try Harness(trigger: .notification)
    try await harness.confirmPrimary(1)
    #expect(harness.repository.entries.first?.initiatedBy == .scheduled)
  }

  @Test func afterTheEndingEveryActionIsRefusedAndNothingEndsTwice() async throws {
    let harness = try Harness()
    let flow = try harness.running
    try flow.send(.close)
    #expect(throws: ActionError(screen: "journal.catalog", problem: .flowEnded)) { try flow.send(.close) }
    flow.cancel(.terminated)
    #expect(harness.endings.count == 1)
  }
}
