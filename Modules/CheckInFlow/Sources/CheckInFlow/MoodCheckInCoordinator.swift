import FlowKit
import Foundation
import MoodTrackingDomain

/// The mood check-in (flow `checkin`): a variant's steps over one draft, an exit
/// confirmation, and a save through MoodTracking before the one ending.
///
/// Steps only build pages and edit the draft; navigation, alerts and saving live
/// here, so a variant is just a list of steps.
@MainActor
public final class MoodCheckInCoordinator: FlowCoordinator<MoodCheckInData> {
  public enum ActiveAlert: Sendable, Equatable {
    case confirmExit
    case error(message: String)

    public var id: String {
      switch self {
      case .confirmExit: MoodCheckInCoordinator.confirmExitAlertID
      case .error: MoodCheckInCoordinator.errorAlertID
      }
    }
  }

  public nonisolated static let flowID = "checkin"
  public nonisolated static let confirmExitAlertID = "checkin.confirmExit"
  public nonisolated static let errorAlertID = "checkin.error"
  /// The journal's flow id; named, not imported, so the check-in knows no other feature.
  public nonisolated static let journalFlowID = "journal"

  /// The steps of this run: the variant's, without the intro once the person began.
  public let steps: [any CheckInStep]
  public let variant: String
  public let trigger: FlowTrigger
  public private(set) var draft = CheckInDraft()
  public private(set) var index = 0
  public private(set) var activeAlert: ActiveAlert?
  /// A save is in flight: every input is disabled until it returns.
  public private(set) var isSaving = false

  private let countedSteps: [Int]
  private let saveMood: SaveMoodUseCase
  private let store: any KeyValueStore
  private let clock: any FlowClock
  private let analytics: any AnalyticsSink
  private let userID: String?
  private let work: WorkTracker
  private let services: Services
  /// The entry once saved: a retry after a step's save failed does not save it again.
  private var savedEntry: MoodEntry?

  public init(
    variant: CheckInVariant, trigger: FlowTrigger = .manual, saveMood: SaveMoodUseCase,
    store: any KeyValueStore, clock: any FlowClock, analytics: any AnalyticsSink = DiscardingAnalyticsSink(),
    userID: String?, work: WorkTracker, services: Services = Services()
  ) {
    // An unreadable flag shows the Pet again, which is harmless.
    let petSeen = (try? store.bool(forKey: CheckInKeys.petSeen)) ?? false
    let steps = variant.steps.filter { !($0.isIntro && petSeen) }
    precondition(steps.contains { !$0.isIntro }, "check-in variant '\(variant.name)' has no step to count")
    self.steps = steps
    self.countedSteps = steps.indices.filter { !steps[$0].isIntro }
    self.variant = variant.name
    self.trigger = trigger
    self.saveMood = saveMood
    self.store = store
    self.clock = clock
    self.analytics = analytics
    self.userID = userID
    self.work = work
    self.services = services
    super.init()
  }

  /// Builds the flow from the host's context; the mood ports come from `Services`.
  public convenience init(context: FlowContext, variant: CheckInVariant) {
    let environment = context.environment
    self.init(
      variant: variant, trigger: context.trigger, saveMood: environment.saveMood,
      store: environment.keyValueStore, clock: environment.clock, analytics: environment.analytics,
      userID: environment.userID, work: context.work, services: environment.services)
  }

  public var step: any CheckInStep { steps[index] }

  /// A launch check-in is the day's mood; any other is a moment's emotion.
  public var kind: MoodKind { trigger == .launch ? .dailyMood : .momentaryEmotion }

  override public var screen: Screen {
    let step = step
    var page = step.page(for: draft)
    if isSaving {
      for position in page.elements.indices { page.elements[position].isEnabled = false }
    }
    let progress = countedSteps.firstIndex(of: index).map {
      StepProgress(index: $0 + 1, count: countedSteps.count)
    }
    return Screen(
      id: step.screenID, title: page.title, message: isSaving ? "Saving…" : page.message,
      progress: progress, elements: page.elements, alert: alert,
      canGoBack: !isSaving && index > 0 && !steps[index - 1].isIntro, canClose: !isSaving)
  }

  override public func handle(_ action: UserAction) throws(ActionError) {
    if let activeAlert, case .tap(let button) = action {
      answer(activeAlert, button: button)
      return
    }
    switch action {
    case .back:
      index -= 1
    case .close:
      if step.isIntro { cancel(.user) } else { activeAlert = .confirmExit }
    default:
      switch step.handle(action, draft: &draft) {
      case .stay: break
      case .next: advance()
      case .finish(let journal): save(askingForJournal: journal)
      case .cancel: cancel(.user)
      case .perform(let stepWork): perform(stepWork)
      }
    }
  }

  private func answer(_ alert: ActiveAlert, button: String) {
    switch (alert, button) {
    case (.confirmExit, "exit"): cancel(.user)
    case (.confirmExit, "stay"), (.error, "ok"): activeAlert = nil
    default: break
    }
  }

  private func advance() {
    if step.isIntro {
      // Beginning once is what retires the Pet; a failed write only shows it again.
      try? store.set(true, forKey: CheckInKeys.petSeen)
    }
    if index + 1 < steps.count {
      index += 1
    } else {
      // A variant whose last step only continues ends the same way `complete` does.
      save(askingForJournal: false)
    }
  }

  private func perform(_ stepWork: CheckInStepWork) {
    let services = services
    work.run { [weak self] in
      let change = await stepWork.run(services)
      guard let self, self.isRunning else { return }
      change(&self.draft)
    }
  }

  private func save(askingForJournal journal: Bool) {
    let draft = draft
    let request = SaveMoodRequest(
      score: draft.score, notes: draft.response, labels: draft.savedLabels.isEmpty ? nil : draft.savedLabels,
      associations: draft.associations, kind: kind)
    do {
      try saveMood.validate(request)
    } catch {
      activeAlert = .error(message: error.message)
      return
    }
    isSaving = true
    let saveMood = saveMood
    let alreadySaved = savedEntry
    let steps = steps
    let services = services
    work.run { [weak self] in
      let result: Result<MoodEntry, MoodError>
      do throws(MoodError) {
        if let alreadySaved {
          result = .success(alreadySaved)
        } else {
          result = .success(try await saveMood.save(request).entry)
        }
      } catch {
        result = .failure(error)
      }
      guard case .success(let entry) = result else {
        guard let self, self.isRunning, case .failure(let error) = result else { return }
        self.isSaving = false
        self.activeAlert = .error(message: error.message)
        return
      }
      self?.savedEntry = entry
      // Each step keeps what it contributed, in order, once the mood is saved.
      for step in steps {
        do {
          try await step.save(draft, entry: entry, services: services)
        } catch {
          guard let self, self.isRunning else { return }
          self.isSaving = false
          self.activeAlert = .error(
            message: "Your mood is saved, but the \(step.name) step could not keep its part: \(error)")
          return
        }
      }
      guard let self, self.isRunning else { return }
      self.isSaving = false
      self.finish(entry, draft: draft, journal: journal)
    }
  }

  private func finish(_ entry: MoodEntry, draft: CheckInDraft, journal: Bool) {
    // The mood is saved; a lost count must not turn a saved check-in into an error.
    try? CheckInKeys.incrementCount(in: store)
    if analytics.isRecording {
      analytics.record(
        .moodSaved(entry, flow: Self.flowID, variant: variant, trigger: trigger, at: clock.now))
    }
    complete(
      MoodCheckInData(
        entryID: entry.id, score: entry.score, valence: entry.valence, emotion: draft.emotion,
        labels: entry.labels, prompt: draft.prompt, response: entry.notes, associations: entry.associations,
        evaluation: draft.evaluation, kind: entry.kind, trigger: trigger, variant: variant, date: entry.date,
        // The person chose to write: the journal is theirs (`manual`), whatever started the check-in.
        nextFlow: journal ? FlowRequest(flow: Self.journalFlowID, trigger: .manual) : nil,
        contributions: draft.contributions))
  }

  private var alert: Alert? {
    switch activeAlert {
    case nil:
      return nil
    case .confirmExit:
      return Alert(
        id: Self.confirmExitAlertID, title: "Leave the check-in?",
        message: "What you entered so far will not be saved.",
        buttons: [AlertButton(id: "exit", label: "Leave"), AlertButton(id: "stay", label: "Stay")])
    case .error(let message):
      return Alert(
        id: Self.errorAlertID, title: "Couldn't save your check-in", message: message,
        buttons: [AlertButton(id: "ok", label: "OK")])
    }
  }
}
