import FlowKit
import Foundation

/// What a visit to the entries list changed.
public struct MoodEntriesSummary: Sendable, Hashable {
  public var edited: Int
  public var deleted: Int

  public init(edited: Int = 0, deleted: Int = 0) {
    self.edited = edited
    self.deleted = deleted
  }
}

/// `mood.entries`: the moods of a range, newest first; the chosen one can be edited
/// (`mood.edit`, `back` returns without saving) or deleted after `mood.confirmDelete`.
/// `close` completes.
public final class MoodEntriesCoordinator: FlowCoordinator<MoodEntriesSummary> {
  public nonisolated static let flowID = "mood.entries"
  public nonisolated static let listScreenID = "mood.entries"
  public nonisolated static let editScreenID = "mood.edit"
  public nonisolated static let confirmDeleteAlertID = "mood.confirmDelete"
  public nonisolated static let errorAlertID = "mood.error"

  /// The edit screen's inputs, as the person left them.
  struct Draft: Equatable {
    var entryID: UUID
    var listingID: String
    var date: Date
    var score: Int
    var labels: [String]
    var associations: [String]
    var notes: String

    var edit: MoodEntryEdit {
      MoodEntryEdit(
        score: score, labels: labels.compactMap(MoodLabel.init(rawValue:)),
        associations: associations.compactMap(MoodAssociation.init(rawValue:)), notes: notes)
    }
  }

  enum ActiveAlert: Equatable {
    case confirmDelete(listingID: String)
    case error(String)
  }

  private let entries: MoodEntriesUseCase
  private let clock: any FlowClock
  private let work: WorkTracker
  private var rangeID = "30d"
  private var listings: [MoodEntryListing]?
  private var selectedID: String?
  private var draft: Draft?
  private var alert: ActiveAlert?
  private var isBusy = false
  private var loadError: String?
  private var summary = MoodEntriesSummary()
  private var timer: WorkTracker.TimerID?

  public init(entries: MoodEntriesUseCase, clock: any FlowClock, work: WorkTracker) {
    self.entries = entries
    self.clock = clock
    self.work = work
  }

  public override func didStart() { load() }

  private var selected: MoodEntryListing? {
    selectedID.flatMap { id in listings?.first { $0.id == id } }
  }

  public override var screen: Screen {
    draft.map(editScreen) ?? listScreen
  }

  private var listScreen: Screen {
    let text = MoodEntriesText.self
    let rangeOptions = MoodHistoryRange.options.map {
      ChoiceOption(id: $0.id, label: text.rangeLabels[$0.id] ?? $0.id)
    }
    let entryOptions = (listings ?? []).map { ChoiceOption(id: $0.id, label: label(of: $0)) }
    let chosen = selected != nil && !isBusy
    let message: String =
      if let loadError { loadError } else if let listings {
        listings.isEmpty ? text.listEmpty : text.listPrompt
      } else { text.loading }
    return Screen(
      id: Self.listScreenID, title: text.listTitle, message: message,
      elements: [
        .singleChoice("range", text.range, options: rangeOptions, selected: rangeID),
        .singleChoice("entry", text.entry, options: entryOptions, selected: selected?.id),
        .button("edit", text.edit, enabled: chosen),
        .button("delete", text.delete, enabled: chosen),
        .button("close", text.done, enabled: !isBusy),
      ],
      alert: alert.map(alertView), canClose: !isBusy)
  }

  private func editScreen(_ draft: Draft) -> Screen {
    let text = MoodEntriesText.self
    let problem = problem(with: draft)
    let caption = (try? MoodTranslation.valence(forScore: draft.score)).flatMap(ValenceClass.init(valence:))?
      .displayName
    let (day, time) = dayAndTime(draft.date)
    return Screen(
      id: Self.editScreenID, title: text.editTitle,
      message: problem ?? text.editMessage(day: day, time: time),
      elements: [
        .slider(
          "score", text.score,
          range: Double(MoodLimits.scores.lowerBound)...Double(MoodLimits.scores.upperBound),
          step: 1, value: Double(draft.score), caption: caption),
        .multipleChoice(
          "labels", text.labels,
          options: MoodLabel.allCases.map { ChoiceOption(id: $0.rawValue, label: $0.displayName) },
          selected: draft.labels),
        .multipleChoice(
          "associations", text.associations,
          options: MoodAssociation.allCases.map { ChoiceOption(id: $0.rawValue, label: $0.displayName) },
          selected: draft.associations),
        .text("notes", text.notes, limit: MoodLimits.maxNotesLength, text: draft.notes),
        .button("save", text.save, enabled: problem == nil && !isBusy),
      ],
      alert: alert.map(alertView), canGoBack: !isBusy)
  }

  private func alertView(_ alert: ActiveAlert) -> Alert {
    let text = MoodEntriesText.self
    switch alert {
    case .confirmDelete(let listingID):
      let entry = listings?.first { $0.id == listingID }.map(label(of:)) ?? listingID
      return Alert(
        id: Self.confirmDeleteAlertID, title: text.confirmDeleteTitle,
        message: text.confirmDeleteMessage(entry),
        buttons: [
          AlertButton(id: "delete", label: text.confirmDeleteButton),
          AlertButton(id: "cancel", label: text.cancelButton),
        ])
    case .error(let message):
      return Alert(
        id: Self.errorAlertID, title: text.errorTitle, message: message,
        buttons: [AlertButton(id: "ok", label: text.ok)])
    }
  }

  private func problem(with draft: Draft) -> String? {
    do {
      try entries.validate(draft.edit)
      return nil
    } catch {
      return error.message
    }
  }

  private func dayAndTime(_ date: Date) -> (String, String) {
    let minute = MoodEntryListing.localMinute(date, in: clock.calendar)
    return (String(minute.prefix(10)), String(minute.suffix(5)))
  }

  private func label(of listing: MoodEntryListing) -> String {
    MoodEntriesText.entryLabel(
      day: String(listing.day), time: String(listing.time), score: listing.entry.score,
      emotion: listing.entry.emotion?.displayName)
  }

  public override func handle(_ action: UserAction) throws(ActionError) {
    if let alert {
      handle(action, on: alert)
      return
    }
    if draft != nil {
      handleEdit(action)
      return
    }
    switch action {
    case .select("range", let chosen):
      rangeID = chosen.first ?? rangeID
      load()
    case .select("entry", let chosen):
      selectedID = chosen.first
    case .tap("edit"):
      guard let selected, !isBusy else { return }
      edit(selected)
    case .tap("delete"):
      guard let selected else { return }
      alert = .confirmDelete(listingID: selected.id)
    case .tap("close"), .close:
      if let timer { work.cancelTimer(timer) }
      complete(summary)
    default:
      break
    }
  }

  private func handle(_ action: UserAction, on alert: ActiveAlert) {
    switch (alert, action) {
    case (.confirmDelete(let listingID), .tap("delete")):
      self.alert = nil
      delete(listingID)
    case (.confirmDelete, .tap("cancel")), (.error, .tap("ok")):
      self.alert = nil
    default:
      break
    }
  }

  private func handleEdit(_ action: UserAction) {
    switch action {
    case .set("score", let value): draft?.score = Int(value)
    case .select("labels", let chosen): draft?.labels = chosen
    case .select("associations", let chosen): draft?.associations = chosen
    case .enter("notes", let text): draft?.notes = text
    case .tap("save"): save()
    case .back: draft = nil
    default: break
    }
  }

  /// Reads the whole entry (the list holds what it shows) and opens `mood.edit` on it.
  private func edit(_ listing: MoodEntryListing) {
    isBusy = true
    let entries = entries
    work.run { [weak self] in
      do {
        let entry = try await entries.entry(listing.entry.id)
        guard let self else { return }
        self.isBusy = false
        self.draft = Draft(
          entryID: entry.id, listingID: listing.id, date: entry.date, score: entry.score,
          labels: entry.labels.map(\.rawValue), associations: entry.associations.map(\.rawValue),
          notes: entry.notes ?? "")
      } catch {
        guard let self else { return }
        self.isBusy = false
        self.alert = .error((error as? MoodError)?.message ?? "\(error)")
        // Deleted since the list was read: the list is read again, without it.
        if case .entryNotFound = error as? MoodError { self.load() }
      }
    }
  }

  private func save() {
    guard let draft, problem(with: draft) == nil else { return }
    isBusy = true
    let entries = entries
    work.run { [weak self] in
      do {
        let result = try await entries.update(draft.entryID, with: draft.edit)
        guard let self else { return }
        if case .updated = result { self.summary.edited += 1 }
        self.isBusy = false
        self.draft = nil
        self.selectedID = draft.listingID
        self.load()
      } catch {
        self?.isBusy = false
        self?.alert = .error((error as? MoodError)?.message ?? "\(error)")
      }
    }
  }

  private func delete(_ listingID: String) {
    guard let listing = listings?.first(where: { $0.id == listingID }) else { return }
    isBusy = true
    let entries = entries
    work.run { [weak self] in
      do {
        try await entries.delete(listing.entry.id)
        guard let self else { return }
        self.summary.deleted += 1
        self.isBusy = false
        self.selectedID = nil
        self.load()
      } catch {
        self?.isBusy = false
        self?.alert = .error((error as? MoodError)?.message ?? "\(error)")
      }
    }
  }

  /// The list is of days ending today: at the user's midnight it is loaded again.
  private func reloadAtMidnight() {
    if let timer { work.cancelTimer(timer) }
    let today = MoodDay(clock.now, in: clock.calendar)
    timer = work.schedule(at: today.adding(days: 1).start(in: clock.calendar)) { [weak self] in
      guard let self, self.isRunning else { return }
      self.load()
    }
  }

  /// Counts loads, so only the latest one's answer is shown: choosing `1y` then `7d`
  /// quickly must not end with the year's entries under `7d`.
  private var loads = 0

  private func load() {
    guard let range = MoodHistoryRange(id: rangeID) else { return }
    reloadAtMidnight()
    let entries = entries
    loads += 1
    let load = loads
    work.run { [weak self] in
      do {
        let listings = try await entries.listings(in: range)
        guard let self, load == self.loads else { return }
        self.listings = listings
        self.loadError = nil
        // A choice that left the range (or was deleted) is no choice.
        if let selected = self.selectedID, !listings.contains(where: { $0.id == selected }) {
          self.selectedID = nil
        }
      } catch {
        guard let self, load == self.loads else { return }
        self.loadError = (error as? MoodError)?.message ?? "\(error)"
      }
    }
  }
}
