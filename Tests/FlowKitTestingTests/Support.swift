import FlowKit
import FlowKitTesting

/// A two-step flow: `next` moves on, the last `next` completes with the note (or the
/// flow's id) and marks `<id>.seen`, `close` cancels. `leaks` makes it keep itself alive after its ending.
final class TwoStepCoordinator: FlowCoordinator<String> {
  let id: String
  private var index = 0
  private var note = ""
  private var keepAlive: (() -> Void)?
  private let store: (any KeyValueStore)?

  init(id: String, leaks: Bool = false, store: (any KeyValueStore)? = nil) {
    self.id = id
    self.store = store
    super.init()
    if leaks { keepAlive = { _ = self } }
  }

  override var screen: Screen {
    Screen(
      id: "\(id).\(index == 0 ? "one" : "two")", title: "Step \(index + 1)",
      elements: [.button("next", "Next"), .text("note", "Note", limit: 20, text: note)], canGoBack: index > 0,
      canClose: true)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("next"):
      if index == 0 {
        index = 1
      } else {
        try? store?.set(true, forKey: "\(id).seen")
        complete(note.isEmpty ? id : note)
      }
    case .enter("note", let text): note = text
    case .back: index = 0
    case .close: cancel()
    default: break
    }
  }
}

/// Registers `two` (and, when asked, the leaking `leaky`) with a launch rule for `two`.
enum TwoStepFeature: FlowFeature {
  static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    for (id, leaks) in [("two", false), ("leaky", true)] {
      try registry.register(
        FlowDefinition(
          id: id, summary: "two steps", variants: ["standard"],
          screens: [
            ScreenDeclaration("\(id).one", elements: ["next", "note"]),
            ScreenDeclaration("\(id).two", elements: ["next", "note"]),
          ],
          make: { context in
            TwoStepCoordinator(id: id, leaks: leaks, store: context.environment.keyValueStore)
          }))
    }
    try registry.register(
      LaunchRule(id: "two", priority: 1, request: FlowRequest(flow: "two", trigger: .launch)) { env in
        !(try env.keyValueStore.bool(forKey: "two.seen"))
      })
  }
}

/// A port a feature declares and the tests provide or leave out.
protocol Notebook: Sendable {}
struct PaperNotebook: Notebook {}
enum NotebookKey: ServiceKey {
  typealias Value = any Notebook
}

enum NotebookFeature: FlowFeature {
  static var requiredServices: [any ServiceKey.Type] { [NotebookKey.self] }
  static func register(in registry: inout FlowRegistry) throws(RegistryError) {}
}
