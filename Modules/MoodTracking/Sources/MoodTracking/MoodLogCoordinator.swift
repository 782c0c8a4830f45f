import FlowKit
import Foundation

/// `mood.log`: a score, optional notes and a day (today by default, backdating
/// allowed). Saves a daily mood labelled by the score; output: the saved entry.
public final class MoodLogCoordinator: FlowCoordinator<MoodEntry> {
  private let saveMood: SaveMoodUseCase
  private let clock: any FlowClock
  private let analytics: any AnalyticsSink
  private let trigger: FlowTrigger
  private let work: WorkTracker
  private var score = 5
  private var notes = ""
  /// What the person typed into `date`; until then the day is today, whatever the
  /// clock says now (the flow may stay open across midnight).
  private var typedDate: String?
  private var dateText: String { typedDate ?? MoodDay(clock.now, in: clock.calendar).description }
  private var isSaving = false
  private var saveError: String?

  public init(
    saveMood: SaveMoodUseCase, clock: any FlowClock, analytics: any AnalyticsSink = DiscardingAnalyticsSink(),
    trigger: FlowTrigger = .manual, work: WorkTracker
  ) {
    self.saveMood = saveMood
    self.clock = clock
    self.analytics = analytics
    self.trigger = trigger
    self.work = work
  }

  /// The request the inputs make; nil while the date is not a day.
  private var request: SaveMoodRequest? {
    guard let day = MoodDay(dateText.trimmingCharacters(in: .whitespaces)) else { return nil }
    return SaveMoodRequest(
      score: score, notes: notes, date: day.moment(atLocalTimeOf: clock.now, in: clock.calendar),
      kind: .dailyMood)
  }

  /// What a person must fix before `save` is enabled.
  private var problem: String? {
    guard let request else {
      return
        "date must be a day written YYYY-MM-DD, e.g. \(MoodDay(clock.now, in: clock.calendar))"
    }
    do {
      try saveMood.validate(request)
      return nil
    } catch {
      return error.message
    }
  }

  public override var screen: Screen {
    let problem = problem
    let caption = (try? MoodTranslation.valence(forScore: score)).flatMap(ValenceClass.init(valence:))?
      .displayName
    return Screen(
      id: "mood.log", title: "Log your mood", message: problem ?? "How are you feeling?",
      elements: [
        .slider("score", "Mood", range: 1...10, step: 1, value: Double(score), caption: caption),
        .text("notes", "Notes", limit: MoodLimits.maxNotesLength, text: notes),
        .text("date", "Day", limit: 10, text: dateText),
        .button("save", "Save", enabled: problem == nil && !isSaving),
      ],
      alert: saveError.map {
        Alert(
          id: "mood.error", title: "Couldn't save your mood", message: $0,
          buttons: [AlertButton(id: "ok", label: "OK")])
      },
      canClose: !isSaving)
  }

  public override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .set("score", let value): score = Int(value)
    case .enter("notes", let text): notes = text
    case .enter("date", let text): typedDate = text
    case .tap("ok"): saveError = nil
    case .tap("save"): save()
    case .close: cancel()
    default: break
    }
  }

  private func save() {
    guard let request, problem == nil else { return }
    isSaving = true
    let saveMood = saveMood
    work.run { [weak self] in
      do {
        let entry = try await saveMood.save(request).entry
        guard let self else { return }
        if self.analytics.isRecording {
          self.analytics.record(
            .moodSaved(
              entry, flow: "mood.log", variant: "standard", trigger: self.trigger, at: self.clock.now))
        }
        self.complete(entry)
      } catch {
        self?.isSaving = false
        self?.saveError = (error as? MoodError)?.message ?? "\(error)"
      }
    }
  }
}
