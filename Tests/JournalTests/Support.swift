import FlowKit
import FlowKitTesting
import Foundation
import Journal
import JournalTesting
import Testing

/// 2026-01-05T09:00Z, the runner's default start.
let startDate = TestEnvironment.defaultStart

func bundledCatalog() throws -> JournalCatalog { try JournalCatalog.bundled() }

/// Records the pauses a flow asks for, without waiting.
final class RecordingPresentationClock: PresentationClock {
  private let pauses = Locked<[Double]>([])
  var recorded: [Double] { pauses.current }
  func pause(seconds: Double) async { pauses.withLock { $0.append(seconds) } }
}

/// Runs one journal coordinator the way the host does (FlowKitTesting's driver, with
/// work in tasks as in an app), holding it only weakly so tests can prove it is
/// released after its ending.
@MainActor
final class Harness: FlowDriver<JournalEntry, JournalFlowCoordinator> {
  let ports: TestEnvironment
  let repository: InMemoryJournalRepository
  let presentationClock: RecordingPresentationClock

  init(
    userID: String? = "user-1", trigger: FlowTrigger = .manual, catalog: JournalCatalog? = nil,
    repository: InMemoryJournalRepository = InMemoryJournalRepository()
  ) throws {
    let ports = TestEnvironment(now: startDate, userID: userID)
    let presentationClock = RecordingPresentationClock()
    let catalog = try catalog ?? bundledCatalog()
    self.ports = ports
    self.repository = repository
    self.presentationClock = presentationClock
    let counter = Locked(0)
    super.init(work: WorkTracker()) { work in
      JournalFlowCoordinator(
        catalog: catalog, userID: userID, trigger: trigger, clock: ports.clock,
        presentationClock: presentationClock, analytics: ports.analytics, repository: repository, work: work,
        makeID: {
          counter.withLock {
            $0 += 1
            return "entry-\($0)"
          }
        })
    }
  }

  var clock: ManualClock { ports.clock }
  var analytics: InMemoryAnalyticsSink { ports.analytics }
  var alertID: String? { screen.alert?.id }

  func tap(_ id: String) async throws { try await send(.tap(id)) }
  func select(_ element: String, _ option: Int) async throws {
    try await send(.select(element, [String(option)]))
  }

  func confirmPrimary(_ id: Int = 1) async throws {
    try await select("entry", id)
    try await tap("confirm")
  }

  var completedEntry: JournalEntry? { output }
}

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
