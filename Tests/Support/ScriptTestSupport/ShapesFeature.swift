import FlowKit
import Foundation

/// Small flows whose exploration is known exactly.
package enum ShapesFeature: FlowFeature {
  package static func registry() throws -> FlowRegistry {
    var registry = FlowRegistry()
    try registry.register(ShapesFeature.self)
    return registry
  }

  package static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: "shapes.dial", summary: "a value of 0…3 moved up and down", variants: ["standard"],
        screens: [ScreenDeclaration("dial.main", elements: ["value", "up", "down", "done"])],
        make: { _ in DialCoordinator() }))
    try registry.register(
      FlowDefinition(
        id: "shapes.hidden", summary: "declares a screen it never shows", variants: ["standard"],
        screens: [
          ScreenDeclaration("hidden.start", elements: ["finish"]),
          ScreenDeclaration("hidden.secret", elements: ["finish"]),
        ],
        make: { _ in HiddenCoordinator() }))
    try registry.register(
      FlowDefinition(
        id: "shapes.endless", summary: "can only be closed", variants: ["standard"],
        screens: [
          ScreenDeclaration("endless.first", elements: ["next"]),
          ScreenDeclaration("endless.second", elements: []),
        ],
        make: { _ in EndlessCoordinator() }))
    try registry.register(
      FlowDefinition(
        id: "shapes.plan", summary: "two plans alike, one leading elsewhere", variants: ["standard"],
        screens: [
          ScreenDeclaration("plan.choose", elements: ["plan", "continue"]),
          ScreenDeclaration("plan.free", elements: ["finish"]),
          ScreenDeclaration("plan.paid", elements: ["finish"]),
        ],
        make: { _ in PlanCoordinator() }))
  }
}

final class DialCoordinator: FlowCoordinator<Int> {
  private var value = 0

  override var screen: Screen {
    Screen(
      id: "dial.main", title: "Dial",
      elements: [
        .info("value", "Value", value: .number(Double(value))), .button("up", "Up", enabled: value < 3),
        .button("down", "Down", enabled: value > 0), .button("done", "Done"),
      ])
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("up"): value += 1
    case .tap("down"): value -= 1
    case .tap("done"): complete(value)
    default: break
    }
  }
}

final class HiddenCoordinator: FlowCoordinator<Void> {
  override var screen: Screen {
    Screen(id: "hidden.start", title: "Start", elements: [.button("finish", "Finish")])
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    if action == .tap("finish") { complete(()) }
  }
}

final class EndlessCoordinator: FlowCoordinator<Void> {
  private var second = false

  override var screen: Screen {
    second
      ? Screen(id: "endless.second", title: "Second", canGoBack: true, canClose: true)
      : Screen(id: "endless.first", title: "First", elements: [.button("next", "Next")], canClose: true)
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .tap("next"): second = true
    case .back: second = false
    case .close: cancel()
    default: break
    }
  }
}

/// Plans a and b lead to the free screen, c to the paid one; the choosing screen looks
/// the same whichever is chosen.
final class PlanCoordinator: FlowCoordinator<String> {
  private var plan: String?
  private var page = "plan.choose"

  override var screen: Screen {
    switch page {
    case "plan.choose":
      Screen(
        id: page, title: "Choose a plan",
        elements: [
          .singleChoice(
            "plan", "Plan", options: ["a", "b", "c"].map { ChoiceOption(id: $0, label: "Plan \($0)") },
            selected: plan),
          .button("continue", "Continue", enabled: plan != nil),
        ])
    default:
      Screen(id: page, title: "Plan \(plan ?? "")", elements: [.button("finish", "Finish")])
    }
  }

  override func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .select("plan", let ids): plan = ids.first
    case .tap("continue"): page = plan == "c" ? "plan.paid" : "plan.free"
    case .tap("finish"): complete(plan ?? "")
    default: break
    }
  }
}
