import FlowKit
import Foundation

/// The journal flow (flow `journal`): one catalog screen and a chain of alerts.
///
/// The design keeps one promise: two alerts never collide and navigation never
/// happens under an alert. So there is exactly one `activeAlert` and one `flowState`,
/// and both change only in the action methods below, reached through `send`, which
/// refuses anything but the alert's buttons while an alert is up.
@MainActor
public final class JournalFlowCoordinator: FlowCoordinator<JournalEntry> {
  public enum FlowState: String, Sendable, Equatable {
    case idle
    /// The primary is logged and the person agreed to add a second feeling.
    case selectingSecondary
    /// The person agreed to pick a self-care strategy; only layer 0 is usable.
    case selectingStrategy
  }

  /// What `ok` on `journal.error` does: go back to where the person was, or end the
  /// flow when it was the ending that failed (the entry itself is already kept).
  public enum AfterError: Sendable, Equatable {
    case resume
    case end
  }

  public enum ActiveAlert: Sendable, Equatable {
    case confirmPrimary(entry: Int)
    case askSecondary
    case confirmSecondary(entry: Int)
    case askSelfCare
    case confirmStrategy(strategy: Int)
    case success
    case error(message: String, then: AfterError)

    public var id: String {
      switch self {
      case .confirmPrimary: "journal.confirmPrimary"
      case .askSecondary: "journal.askSecondary"
      case .confirmSecondary: "journal.confirmSecondary"
      case .askSelfCare: "journal.askSelfCare"
      case .confirmStrategy: "journal.confirmStrategy"
      case .success: "journal.success"
      case .error: "journal.error"
      }
    }
  }

  public nonisolated static let flowID = "journal"
  public nonisolated static let screenID = "journal.catalog"
  /// How long an alert's dismissal animates before the next one may appear.
  public nonisolated static let alertDismissalSeconds = 0.35

  public let catalog: JournalCatalog
  public private(set) var flowState: FlowState = .idle
  public private(set) var activeAlert: ActiveAlert?
  public private(set) var layer: Int
  public private(set) var phase: Int
  /// The entry as last saved; nil until the primary is confirmed and saved.
  public private(set) var entry: JournalEntry?
  /// A save or the ending is in flight: every input is disabled until it returns.
  public private(set) var isBusy = false

  private let userID: String?
  private let initiatedBy: JournalInitiator
  private let variant: String
  private let clock: any FlowClock
  private let presentationClock: any PresentationClock
  private let analytics: any AnalyticsSink
  private let repository: any JournalRepository
  private let work: WorkTracker
  private let makeID: @Sendable () -> String

  public init(
    catalog: JournalCatalog, userID: String?, trigger: FlowTrigger = .manual, variant: String = "standard",
    clock: any FlowClock, presentationClock: any PresentationClock = ImmediatePresentationClock(),
    analytics: any AnalyticsSink = DiscardingAnalyticsSink(), repository: any JournalRepository,
    work: WorkTracker, makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
  ) {
    self.catalog = catalog
    self.userID = userID
    self.initiatedBy = JournalInitiator(trigger: trigger)
    self.variant = variant
    self.clock = clock
    self.presentationClock = presentationClock
    self.analytics = analytics
    self.repository = repository
    self.work = work
    self.makeID = makeID
    // Validation guarantees a feeling layer and a phase; start on the first of each.
    self.layer = catalog.layers.first { $0.id != JournalCatalog.selfCareLayer }?.id ?? 1
    self.phase = catalog.phases.first?.id ?? 1
    super.init()
  }

  /// Builds the flow from the host's context; the repository comes from `Services`.
  public convenience init(context: FlowContext, catalog: JournalCatalog) {
    let environment = context.environment
    self.init(
      catalog: catalog, userID: environment.userID, trigger: context.trigger, variant: context.variant,
      clock: environment.clock, presentationClock: environment.presentationClock,
      analytics: environment.analytics, repository: environment.services[JournalRepositoryKey.self],
      work: context.work)
  }

  override public var screen: Screen {
    let usable = !isBusy
    var elements = [
      Element.singleChoice(
        "layer", "Layer",
        options: catalog.layers.map { ChoiceOption(id: String($0.id), label: $0.title) },
        selected: String(layer)),
      Element.singleChoice(
        "phase", "Phase",
        options: catalog.phases.map { ChoiceOption(id: String($0.id), label: $0.title) },
        selected: String(phase)),
    ]
    elements[0].isEnabled = usable && flowState != .selectingStrategy
    elements[1].isEnabled = usable && flowState != .selectingStrategy
    if layer == JournalCatalog.selfCareLayer {
      var strategies = Element.singleChoice(
        "strategy", "Self-care",
        options: catalog.strategies.map { ChoiceOption(id: String($0.id), label: $0.text) },
        selected: pendingStrategy.map(String.init))
      strategies.isEnabled = usable && flowState == .selectingStrategy
      elements.append(strategies)
    } else {
      var entries = Element.singleChoice(
        "entry", "How it feels",
        options: catalog.entries(layer: layer, phase: phase).map {
          ChoiceOption(
            id: String($0.id), label: "\($0.kind.rawValue.capitalized), \($0.dosage): \($0.expression)")
        },
        selected: pendingEntry.map(String.init))
      entries.isEnabled = usable && flowState != .selectingStrategy
      elements.append(entries)
    }
    elements.append(.button("close", "Close", enabled: usable))
    return Screen(
      id: Self.screenID, title: "Journal", message: message, elements: elements, alert: alert,
      canClose: usable)
  }

  override public func handle(_ action: UserAction) throws(ActionError) {
    if let activeAlert, case .tap(let button) = action {
      answer(activeAlert, button: button)
    } else {
      switch action {
      case .select("layer", let ids): if let id = ids.first.flatMap(Int.init) { layer = id }
      case .select("phase", let ids): if let id = ids.first.flatMap(Int.init) { phase = id }
      case .select("entry", let ids): if let id = ids.first.flatMap(Int.init) { try choose(entry: id) }
      case .select("strategy", let ids): if let id = ids.first.flatMap(Int.init) { choose(strategy: id) }
      case .tap("close"), .close: end()
      default: break
      }
    }
    followFlowState()
  }

  /// Typed conveniences for a native view; they go through `send`, so the same rules apply.
  public func selectLayer(_ id: Int) throws(ActionError) { try send(.select("layer", [String(id)])) }
  public func selectPhase(_ id: Int) throws(ActionError) { try send(.select("phase", [String(id)])) }
  public func selectEntry(_ id: Int) throws(ActionError) { try send(.select("entry", [String(id)])) }
  public func selectStrategy(_ id: Int) throws(ActionError) { try send(.select("strategy", [String(id)])) }
  public func tapAlertButton(_ id: String) throws(ActionError) { try send(.tap(id)) }

  private func choose(entry id: Int) throws(ActionError) {
    switch flowState {
    case .idle:
      activeAlert = .confirmPrimary(entry: id)
    case .selectingSecondary:
      guard id != entry?.primary else {
        throw ActionError(
          screen: Self.screenID, element: "entry",
          problem: .refused("entry \(id) is already your first feeling; choose a different one"))
      }
      activeAlert = .confirmSecondary(entry: id)
    case .selectingStrategy:
      break
    }
  }

  private func choose(strategy id: Int) {
    guard flowState == .selectingStrategy else { return }
    activeAlert = .confirmStrategy(strategy: id)
  }

  private func answer(_ alert: ActiveAlert, button: String) {
    switch (alert, button) {
    case (.confirmPrimary(let id), "confirm"):
      guard let userID else {
        activeAlert = .error(message: JournalRepositoryError.userNotAuthenticated.description, then: .resume)
        return
      }
      let draft = JournalEntry(
        id: makeID(), userID: userID, createdAt: clock.now, primary: id, initiatedBy: initiatedBy)
      save(draft, next: .askSecondary)
    case (.askSecondary, "accept"):
      activeAlert = nil
      flowState = .selectingSecondary
    case (.askSecondary, "decline"):
      activeAlert = .askSelfCare
    case (.confirmSecondary(let id), "confirm"):
      guard var updated = entry else { return }
      updated.secondary = id
      save(updated, next: .askSelfCare)
    case (.askSelfCare, "accept"):
      activeAlert = nil
      flowState = .selectingStrategy
    case (.askSelfCare, "decline"):
      activeAlert = .success
    case (.confirmStrategy(let id), "confirm"):
      guard var updated = entry else { return }
      updated.strategy = id
      save(updated, next: .success)
    case (.success, "ok"):
      end()
    case (.error(_, .end), "ok"):
      activeAlert = nil
      if let entry { logged(entry) } else { cancel(.user) }
    case (.confirmPrimary, "cancel"), (.confirmSecondary, "cancel"), (.confirmStrategy, "cancel"),
      (.error(_, .resume), "ok"):
      activeAlert = nil
    default:
      break
    }
  }

  /// Keeps the state's promise: choosing a strategy happens on layer 0, and the screen
  /// goes there by itself once no alert covers it.
  private func followFlowState() {
    if flowState == .selectingStrategy, activeAlert == nil, !isBusy {
      layer = JournalCatalog.selfCareLayer
    }
  }

  /// Saves `updated` as tracked work; on success it becomes the entry and `next` is
  /// raised, on failure `journal.error` is, and nothing else changes.
  private func save(_ updated: JournalEntry, next: ActiveAlert) {
    activeAlert = nil
    isBusy = true
    let repository = repository
    let presentationClock = presentationClock
    work.run { [weak self] in
      let failure: String?
      do {
        try await repository.save(updated)
        failure = nil
      } catch {
        failure = "\(error)"
      }
      // The confirmation's dismissal animates meanwhile; the next alert waits for it.
      await presentationClock.pause(seconds: Self.alertDismissalSeconds)
      guard let self, self.isRunning else { return }
      self.isBusy = false
      if let failure {
        self.activeAlert = .error(message: failure, then: .resume)
      } else {
        self.entry = updated
        self.activeAlert = next
      }
      self.followFlowState()
    }
  }

  /// Ends the flow: without a confirmed primary it is cancelled and nothing is kept;
  /// with one, the entry's outbox row is queued first, then the flow completes.
  private func end() {
    guard let entry else {
      cancel(.user)
      return
    }
    activeAlert = nil
    isBusy = true
    let repository = repository
    work.run { [weak self] in
      let failure: String?
      do {
        try await repository.finish(entry)
        failure = nil
      } catch {
        failure = "\(error)"
      }
      guard let self, self.isRunning else { return }
      self.isBusy = false
      if let failure {
        self.activeAlert = .error(message: failure, then: .end)
      } else {
        self.logged(entry)
      }
    }
  }

  private func logged(_ entry: JournalEntry) {
    var fields: [String: EventValue] = [
      "primary": .number(Double(entry.primary)), "initiated_by": .string(entry.initiatedBy.rawValue),
    ]
    if let secondary = entry.secondary { fields["secondary"] = .number(Double(secondary)) }
    if let strategy = entry.strategy { fields["strategy"] = .number(Double(strategy)) }
    analytics.record(
      AnalyticsEvent(
        ts: clock.now, user: entry.userID, event: "journal_logged", flow: Self.flowID, variant: variant,
        fields: fields))
    complete(entry)
  }

  private var pendingEntry: Int? {
    switch activeAlert {
    case .confirmPrimary(let id), .confirmSecondary(let id): id
    default: nil
    }
  }

  private var pendingStrategy: Int? {
    if case .confirmStrategy(let id) = activeAlert { id } else { nil }
  }

  private var message: String {
    if isBusy { return "Saving…" }
    switch flowState {
    case .idle: return "How are you feeling? Pick a layer, a phase and the entry that fits."
    case .selectingSecondary: return "Is there a second feeling? Pick another entry."
    case .selectingStrategy: return "Pick something kind to do for yourself."
    }
  }

  private var alert: Alert? {
    guard let activeAlert else { return nil }
    func button(_ id: String, _ label: String) -> AlertButton { AlertButton(id: id, label: label) }
    let (title, message, buttons): (String, String, [AlertButton])
    switch activeAlert {
    case .confirmPrimary(let id):
      (title, message, buttons) = (
        "Log this feeling?", describe(entry: id), [button("confirm", "Log it"), button("cancel", "Cancel")]
      )
    case .askSecondary:
      (title, message, buttons) = (
        "Add a second feeling?", "Feelings often come in pairs. Would you like to log another one?",
        [button("accept", "Add one"), button("decline", "Not now")]
      )
    case .confirmSecondary(let id):
      (title, message, buttons) = (
        "Log this as your second feeling?", describe(entry: id),
        [button("confirm", "Log it"), button("cancel", "Cancel")]
      )
    case .askSelfCare:
      (title, message, buttons) = (
        "Choose some self-care?", "A small kind act can help. Pick one from the self-care layer?",
        [button("accept", "Choose one"), button("decline", "Skip")]
      )
    case .confirmStrategy(let id):
      (title, message, buttons) = (
        "Try this?", catalog.strategy(id)?.text ?? "Strategy \(id)",
        [button("confirm", "I'll do it"), button("cancel", "Cancel")]
      )
    case .success:
      (title, message, buttons) = (
        "Entry saved", "Thank you for checking in with yourself.", [button("ok", "Done")]
      )
    case .error(let reason, _):
      (title, message, buttons) = ("Couldn't save", reason, [button("ok", "OK")])
    }
    return Alert(id: activeAlert.id, title: title, message: message, buttons: buttons)
  }

  private func describe(entry id: Int) -> String {
    guard let entry = catalog.entry(id) else { return "Entry \(id)" }
    return "\(entry.expression) (\(entry.kind.rawValue), \(entry.dosage))"
  }
}
