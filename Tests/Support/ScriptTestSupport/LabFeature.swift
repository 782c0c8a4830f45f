import FlowKit
import Foundation

/// A flow with every kind of input, so each script command has something to act on:
/// `lab.form` (text, slider, toggle, multiple choice, an alert, close) and `lab.done`.
package final class LabCoordinator: FlowCoordinator<String> {
  package let store: any KeyValueStore
  private var note = ""
  private var level = 5.0
  private var flag = false
  private var tags: [String] = []
  private var confirming = false
  private var done = false

  package init(store: any KeyValueStore) { self.store = store }

  override package var screen: Screen {
    if done {
      return Screen(
        id: "lab.done", title: "Done", message: "Level \(formatNumber(level))",
        elements: [.button("finish", "Finish")], canGoBack: true)
    }
    return Screen(
      id: "lab.form", title: "Lab form", message: "Fill in the form",
      elements: [
        .text("note", "Note", limit: 10, text: note),
        .slider("level", "Level", range: 1...10, step: 1, value: level, caption: "Level caption"),
        .toggle("flag", "Flag", isOn: flag),
        .multipleChoice(
          "tags", "Tags", options: ["a", "b", "c"].map { ChoiceOption(id: $0, label: "Tag \($0)") },
          selected: tags),
        .button("ask", "Ask", enabled: flag),
      ],
      alert: confirming
        ? Alert(
          id: "lab.confirm", title: "Go on?", message: "Sure?",
          buttons: [AlertButton(id: "proceed", label: "Proceed"), AlertButton(id: "stay", label: "Stay")])
        : nil,
      canClose: true)
  }

  override package func handle(_ action: UserAction) throws(ActionError) {
    switch action {
    case .enter("note", let text): note = text
    case .set("level", let value): level = value
    case .toggle("flag", let isOn): flag = isOn
    case .select("tags", let chosen): tags = chosen
    case .tap("ask"): confirming = true
    case .tap("stay"): confirming = false
    case .tap("proceed"):
      confirming = false
      done = true
    case .back: done = false
    case .close: cancel()
    case .tap("finish"):
      try? store.set(note, forKey: "lab.note")
      try? store.set(formatNumber(level), forKey: "lab.level")
      try? store.set(flag, forKey: "lab.flag")
      try? store.set(tags.joined(separator: ","), forKey: "lab.tags")
      complete(note)
    default: break
    }
  }
}

package enum LabFeature: FlowFeature {
  package static func registry() throws -> FlowRegistry {
    var registry = FlowRegistry()
    try registry.register(LabFeature.self)
    return registry
  }

  package static func register(in registry: inout FlowRegistry) throws(RegistryError) {
    try registry.register(
      FlowDefinition(
        id: "lab", summary: "every kind of input", variants: ["plain", "other"],
        screens: [
          ScreenDeclaration(
            "lab.form", elements: ["note", "level", "flag", "tags", "ask"],
            alerts: [AlertDeclaration("lab.confirm", buttons: ["proceed", "stay"])]),
          ScreenDeclaration("lab.done", elements: ["finish"]),
        ],
        make: { context in LabCoordinator(store: context.environment.keyValueStore) }))
    try registry.register(
      QueryDefinition("lab.note", type: .text, summary: "") { env in
        try env.keyValueStore.string(forKey: "lab.note").map(QueryValue.text) ?? .none
      })
    try registry.register(
      QueryDefinition("lab.level", type: .number, summary: "") { env in
        .number(Double(try env.keyValueStore.string(forKey: "lab.level") ?? "0") ?? 0)
      })
    try registry.register(
      QueryDefinition("lab.flag", type: .bool, summary: "") { env in
        .bool(try env.keyValueStore.bool(forKey: "lab.flag"))
      })
    try registry.register(
      QueryDefinition("lab.tags", type: .list, summary: "") { env in
        .list((try env.keyValueStore.string(forKey: "lab.tags") ?? "").split(separator: ",").map(String.init))
      })
    try registry.register(
      QueryDefinition("lab.user", type: .text, summary: "") { env in .text(env.userID ?? "none") })
    try registry.register(
      QueryDefinition("clock.local", type: .text, summary: "the local date and time") { env in
        let parts = env.clock.calendar.dateComponents(
          [.year, .month, .day, .hour, .minute], from: env.clock.now)
        return .text(
          String(
            format: "%04d-%02d-%02dT%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!,
            parts.minute!)
        )
      })
    try registry.register(
      LaunchRule(id: "lab", priority: 1, request: FlowRequest(flow: "lab", trigger: .launch)) { env in
        !(try env.keyValueStore.bool(forKey: "lab.flag"))
      })
  }
}
