import FlowKit
import Foundation
import Journal
import Testing

/// 2026-01-05T09:00Z, the runner's default start.
let startDate = Date(timeIntervalSince1970: 1_767_603_600)

func bundledCatalog() throws -> JournalCatalog { try JournalCatalog.bundled() }

/// Records the pauses a flow asks for, without waiting.
final class RecordingPresentationClock: PresentationClock {
  private let pauses = Locked<[Double]>([])
  var recorded: [Double] { pauses.current }
  func pause(seconds: Double) async { pauses.withLock { $0.append(seconds) } }
}

/// Runs one journal coordinator the way the host does, holding it only weakly so
/// tests can prove it is released after its ending.
@MainActor
final class Harness {
  let repository: InMemoryJournalRepository
  let work = WorkTracker()
  let clock = ManualClock(now: startDate, timeZone: TimeZone(identifier: "UTC")!)
  let analytics = InMemoryAnalyticsSink()
  let presentationClock = RecordingPresentationClock()
  private(set) var endings: [FlowResult<JournalEntry>] = []
  weak var flow: JournalFlowCoordinator?

  init(
    userID: String? = "user-1", trigger: FlowTrigger = .manual, catalog: JournalCatalog? = nil,
    repository: InMemoryJournalRepository = InMemoryJournalRepository()
  ) throws {
    self.repository = repository
    let counter = Locked(0)
    let coordinator = JournalFlowCoordinator(
      catalog: try catalog ?? bundledCatalog(), userID: userID, trigger: trigger, clock: clock,
      presentationClock: presentationClock, analytics: analytics, repository: repository, work: work,
      makeID: {
        counter.withLock {
          $0 += 1
          return "entry-\($0)"
        }
      })
    coordinator.start { [weak self] result in self?.endings.append(result) }
    flow = coordinator
  }

  var running: JournalFlowCoordinator {
    get throws {
      guard let flow, flow.isRunning else { throw HarnessError.flowNotRunning }
      return flow
    }
  }

  var screen: Screen { flow?.screen ?? Screen(id: "ended", title: "") }
  var alertID: String? { screen.alert?.id }

  /// Sends an action and waits for the work it started, as the runner does between steps.
  func send(_ action: UserAction) async throws {
    guard let flow else { throw HarnessError.flowNotRunning }
    try flow.send(action)
    await work.settle()
  }

  func tap(_ id: String) async throws { try await send(.tap(id)) }
  func select(_ element: String, _ option: Int) async throws {
    try await send(.select(element, [String(option)]))
  }

  /// The error an action fails with, as text; nil when it did not fail.
  func refusal(_ action: UserAction) async -> String? {
    do {
      try await send(action)
      return nil
    } catch {
      return "\(error)"
    }
  }

  func confirmPrimary(_ id: Int = 1) async throws {
    try await select("entry", id)
    try await tap("confirm")
  }

  var completedEntry: JournalEntry? {
    guard endings.count == 1, case .completed(let entry) = endings[0] else { return nil }
    return entry
  }

  var wasCancelled: Bool {
    guard endings.count == 1, case .cancelled = endings[0] else { return false }
    return true
  }
}

enum HarnessError: Error { case flowNotRunning }

/// A small valid catalog as JSON; tests break one record at a time.
func catalogJSON(
  colours: String = ##"[{"id": "sage", "hex": "#8FB996"}, {"id": "sky", "hex": "#7FB3D5"}]"##,
  layers: String = """
  [{"id": 0, "colour": "sage", "title": "Self-care", "subtitle": "s"},
   {"id": 1, "colour": "sky", "title": "Body", "subtitle": "b"}]
  """,
  phases: String = #"[{"id": 1, "title": "Noticing", "subtitle": "n"}]"#,
  entries: String = """
  [{"id": 1, "layer": 1, "phase": 1, "kind": "medicinal", "dosage": "a drop", "expression": "e1"},
   {"id": 2, "layer": 1, "phase": 1, "kind": "toxic", "dosage": "a drop", "expression": "e2"}]
  """,
  strategies: String = """
  [{"id": 1, "text": "Breathe", "colour": "sky"}, {"id": 2, "text": "Walk", "colour": "sage"}]
  """
) -> String {
  """
  {"colours": \(colours), "layers": \(layers), "phases": \(phases), "entries": \(entries),
   "strategies": \(strategies)}
  """
}
