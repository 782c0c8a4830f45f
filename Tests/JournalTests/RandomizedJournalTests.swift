import FlowKit
import FlowKitTesting
import Foundation
import Journal
import Testing

extension SplitMix64 {
  mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }
}

@MainActor
@Suite("Journal flow under random input")
struct RandomizedJournalTests {
  static let sequences = 3_000
  static let maxSteps = 60
  static let baseSeed: UInt64 = 0x6A6F_7572_6E61_6C00

  /// What a sequence's snapshot of navigation looks like; compared around each action.
  private struct Navigation: Equatable {
    var layer: Int
    var phase: Int
    var flowState: JournalFlowCoordinator.FlowState
    var alert: JournalFlowCoordinator.ActiveAlert?
    var entry: JournalEntry?

    @MainActor init(_ flow: JournalFlowCoordinator) {
      layer = flow.layer
      phase = flow.phase
      flowState = flow.flowState
      alert = flow.activeAlert
      entry = flow.entry
    }
  }

  private struct Tally {
    var alerts: Set<String> = []
    var completed = 0
    var cancelledByUser = 0
    var terminated = 0
    var withStrategy = 0
    var refused = 0
    var steps = 0
  }

  @Test func thousandsOfRandomSequencesKeepTheJournalsPromises() async throws {
    let catalog = try bundledCatalog()
    var tally = Tally()
    // `JOURNAL_SEED=<seed> swift test --filter Randomized` replays one failing sequence.
    if let replay = ProcessInfo.processInfo.environment["JOURNAL_SEED"].flatMap(UInt64.init) {
      _ = try await run(seed: replay, catalog: catalog, tally: &tally)
      return
    }
    for index in 0..<Self.sequences {
      let seed = Self.baseSeed &+ UInt64(index)
      if try await run(seed: seed, catalog: catalog, tally: &tally) { return }
    }
    // The generator must reach every branch, or the invariants checked in `run` prove little.
    #expect(
      tally.alerts == [
        "journal.confirmPrimary", "journal.askSecondary", "journal.confirmSecondary", "journal.askSelfCare",
        "journal.confirmStrategy", "journal.success", "journal.error",
      ])
    #expect(tally.completed > 800)
    #expect(tally.cancelledByUser > 300)
    #expect(tally.terminated > 600)
    #expect(tally.withStrategy > 200)
    #expect(tally.refused > 8_000)
    #expect(tally.steps > Self.sequences * 12)
  }

  /// Runs one sequence; returns whether an invariant failed (so the loop stops at the
  /// first failing seed instead of flooding the report).
  private func run(seed: UInt64, catalog: JournalCatalog, tally: inout Tally) async throws -> Bool {
    var rng = SplitMix64(seed: seed)
    let harness = try Harness(
      trigger: rng.chance(0.2) ? .notification : .manual, catalog: catalog)
    var trace: [String] = []
    var failed = false
    func check(_ condition: Bool, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
      guard !condition, !failed else { return }
      failed = true
      Issue.record(
        "seed \(seed): \(what)\n  after: \(trace.joined(separator: " | "))", sourceLocation: sourceLocation)
    }

    let steps = Int.random(in: 1...Self.maxSteps, using: &rng)
    for _ in 0..<steps {
      guard let flow = harness.flow, flow.isRunning, !failed else { break }
      harness.repository.setFailure(rng.chance(0.08) ? .storageFailed("injected") : nil)
      let screen = flow.screen
      let before = Navigation(flow)
      let wasBusy = flow.isBusy
      let action = randomAction(on: screen, catalog: catalog, using: &rng)
      trace.append(action.description)
      tally.steps += 1

      var threw = false
      do {
        try flow.send(action)
      } catch {
        threw = true
        tally.refused += 1
      }
      let endedByAction = !flow.isRunning
      let after = Navigation(flow)

      check(!threw || after == before, "a refused \(action) changed the flow")
      if let alert = screen.alert {
        var isButton = false
        if case .tap(let id) = action { isButton = alert.buttons.contains { $0.id == id } }
        check(isButton || threw, "\(action) was accepted under alert \(alert.id)")
        if !threw {
          check(after.phase == before.phase, "the phase changed under alert \(alert.id)")
          let movedToSelfCare = after.layer == 0 && after.flowState == .selectingStrategy
          check(after.layer == before.layer || movedToSelfCare, "the layer changed under alert \(alert.id)")
          check(
            after.flowState == before.flowState || after.alert == nil,
            "the flow state changed while an alert stayed up")
        }
      } else if !threw, after.alert != nil {
        check(
          (after.layer, after.phase, after.flowState) == (before.layer, before.phase, before.flowState),
          "raising \(after.alert!.id) also navigated")
      }
      check(!wasBusy || threw, "\(action) was accepted while a save was in flight")
      if before.flowState == .selectingSecondary {
        check(
          !(action.elementID == "strategy" && !threw), "a strategy was accepted while choosing the secondary")
      }
      check(!endedByAction || harness.endings.count <= 1, "the flow ended more than once")

      // Usually settle like the runner; sometimes act while a save is still in flight.
      if rng.chance(0.85) { await harness.work.settle() }
      guard let flow = harness.flow, flow.isRunning else { break }
      let settled = flow.screen
      if let alert = settled.alert { tally.alerts.insert(alert.id) }
      check(
        settled.alert?.id == flow.activeAlert?.id, "the screen shows a different alert than the flow holds")
      if flow.flowState == .selectingSecondary {
        let strategy = settled.element("strategy")
        check(strategy == nil || strategy?.isEnabled == false, "strategies are selectable for the secondary")
        for id in catalog.strategies.map(\.id) {
          check(
            (try? settled.validate(.select("strategy", [String(id)]))) == nil,
            "strategy \(id) passes validation while choosing the secondary")
        }
      }
      if flow.flowState == .selectingStrategy, flow.activeAlert == nil, !flow.isBusy {
        check(flow.layer == 0, "choosing a strategy off layer 0 (layer \(flow.layer))")
      }
    }

    await harness.work.settle()
    if let flow = harness.flow, flow.isRunning {
      trace.append("terminate")
      flow.cancel(.terminated)
      await harness.work.settle()
    }
    check(harness.endings.count == 1, "the flow ended \(harness.endings.count) times")
    check(harness.flow == nil, "the coordinator was not released after its ending")
    switch harness.endings.first {
    case .completed(let entry):
      tally.completed += 1
      if entry.strategy != nil { tally.withStrategy += 1 }
      check(harness.repository.entries.map(\.id) == [entry.id], "the completed entry was not the one kept")
      check(harness.repository.outbox.count <= 1, "the entry was queued more than once")
      check(entry.secondary != entry.primary, "the secondary repeats the primary")
    case .cancelled(.user):
      tally.cancelledByUser += 1
      check(harness.repository.entries.isEmpty, "a cancelled journal kept an entry")
      check(harness.repository.outbox.isEmpty, "a cancelled journal queued an entry")
    case .cancelled(.terminated):
      tally.terminated += 1
      check(harness.repository.outbox.isEmpty, "a terminated journal queued an entry")
    case nil:
      break
    }
    return failed
  }

  /// Mostly actions that fit the screen (to reach deep states), some that do not:
  /// disabled elements, unknown ids and options, wrong kinds, input under an alert.
  private func randomAction(
    on screen: Screen, catalog: JournalCatalog, using rng: inout SplitMix64
  ) -> UserAction {
    if let alert = screen.alert, rng.chance(0.8) {
      return .tap(alert.buttons.randomElement(using: &rng)!.id)
    }
    if rng.chance(0.15) {
      let wild: [UserAction] = [
        .tap("nothing"), .tap("confirm"), .tap("ok"), .tap("accept"), .back,
        .select("layer", ["99"]), .select("layer", ["1", "2"]), .select("phase", []),
        .enter("layer", "x"), .set("phase", 2), .toggle("close", true), .tap("layer"),
        .select("strategy", [String(Int.random(in: 1...catalog.strategies.count, using: &rng))]),
        .select("entry", [String(Int.random(in: 1...catalog.entries.count, using: &rng))]),
      ]
      return wild.randomElement(using: &rng)!
    }
    // Closing ends the sequence, so it stays rare enough to reach the deep states.
    if rng.chance(0.03) { return rng.chance(0.5) ? .close : .tap("close") }
    let element = screen.elements.filter { $0.id != "close" }.randomElement(using: &rng)!
    switch element.kind {
    case .choice(let options, _):
      var ids = options.map(\.id)
      if element.id == "layer", rng.chance(0.3) { ids = ["0"] }
      return .select(element.id, [ids.randomElement(using: &rng) ?? "1"])
    default:
      return .tap(element.id)
    }
  }
}
