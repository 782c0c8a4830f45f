import FlowKit

/// `mood.history`: statistics of the chosen range. `close` completes it.
public final class MoodHistoryCoordinator: FlowCoordinator<MoodStatistics?> {
  private let history: MoodHistoryUseCase
  private let work: WorkTracker
  private let clock: any FlowClock
  private var rangeID = "30d"
  private var statistics: MoodStatistics?
  private var loadError: String?
  private var timer: WorkTracker.TimerID?

  public init(history: MoodHistoryUseCase, clock: any FlowClock, work: WorkTracker) {
    self.history = history
    self.clock = clock
    self.work = work
  }

  public override func didStart() { load() }

  /// The statistics are of days ending today: when the day rolls over (the clock passes
  /// the user's midnight), they are loaded again, so a streak that ended shows as ended.
  private func reloadAtMidnight() {
    if let timer { work.cancelTimer(timer) }
    let midnight = history.today.adding(days: 1).start(in: clock.calendar)
    timer = work.schedule(at: midnight) { [weak self] in
      guard let self, self.isRunning else { return }
      self.load()
    }
  }

  public override var screen: Screen {
    let options = MoodHistoryRange.options.map {
      ChoiceOption(id: $0.id, label: Self.rangeLabels[$0.id] ?? $0.id)
    }
    func number(_ value: Double?) -> ElementValue { value.map(ElementValue.number) ?? .none }
    let latest = statistics?.latest
    return Screen(
      id: "mood.history", title: "Your moods",
      message: loadError
        ?? (statistics.map { $0.count == 0 ? "No moods in this range yet." : "" } ?? "Loading…"),
      elements: [
        .singleChoice("range", "Range", options: options, selected: rangeID),
        .info("average", "Average", value: number(statistics?.average)),
        .info("highest", "Highest", value: number(statistics?.highest.map(Double.init))),
        .info("lowest", "Lowest", value: number(statistics?.lowest.map(Double.init))),
        .info("latest", "Latest", value: number(latest.map { Double($0.score) })),
        .info("count", "Entries", value: number(statistics.map { Double($0.count) })),
        .info("streak", "Day streak", value: number(statistics.map { Double($0.streak) })),
        .button("close", "Done"),
      ], canClose: true)
  }

  static let rangeLabels = ["7d": "7 days", "30d": "30 days", "90d": "90 days", "1y": "1 year"]

  public override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .select("range", let chosen):
      rangeID = chosen.first ?? rangeID
      load()
    case .tap("close"), .close:
      if let timer { work.cancelTimer(timer) }
      complete(statistics)
    default:
      break
    }
  }

  private func load() {
    guard let range = MoodHistoryRange(id: rangeID) else { return }
    reloadAtMidnight()
    let history = history
    work.run { [weak self] in
      do {
        let statistics = try await history.statistics(in: range)
        self?.statistics = statistics
        self?.loadError = nil
      } catch {
        self?.loadError = (error as? MoodError)?.message ?? "\(error)"
      }
    }
  }
}
