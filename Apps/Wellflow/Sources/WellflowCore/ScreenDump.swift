import FlowKit
import Foundation

/// A screen as JSON, for renderers that are not Swift (a web page, a test tool): ids,
/// texts, values and each element's accessibility label and value text, which a web
/// renderer gives as `aria-label` and `aria-valuetext`.
public enum ScreenDump {
  /// One line of JSON with sorted keys. Typed text is shown as its length unless
  /// `showingTypedText` (the player, where the person sees what they type).
  public static func json(_ screen: Screen, showingTypedText: Bool = false) -> String {
    let data = try? JSONSerialization.data(
      withJSONObject: object(screen, showingTypedText: showingTypedText), options: [.sortedKeys])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  public static func object(_ screen: Screen, showingTypedText: Bool = false) -> [String: Any] {
    var object: [String: Any] = [
      "id": screen.id, "title": screen.title, "canGoBack": screen.canGoBack, "canClose": screen.canClose,
      "elements": screen.elements.map { element(for: $0, showingTypedText: showingTypedText) },
    ]
    if let message = screen.message { object["message"] = message }
    if let progress = screen.progress {
      object["progress"] = ["index": progress.index, "count": progress.count]
    }
    if let alert = screen.alert {
      object["alert"] = [
        "id": alert.id, "title": alert.title, "message": alert.message,
        "buttons": alert.buttons.map { ["id": $0.id, "label": $0.label] },
      ]
    }
    return object
  }

  private static func element(for element: Element, showingTypedText: Bool) -> [String: Any] {
    let typed = !showingTypedText && element.kind.name == "text field"
    var object: [String: Any] = [
      "id": element.id, "kind": element.kind.name, "label": element.label, "enabled": element.isEnabled,
      "accessibilityLabel": element.accessibilityLabel,
    ]
    if let value = element.accessibilityValue {
      object["accessibilityValue"] = typed ? describeFreeText(value) : value
    }
    switch element.value {
    case .none: break
    case .text(let text): object["value"] = typed ? describeFreeText(text) : text
    case .number(let number): object["value"] = number
    case .bool(let bool): object["value"] = bool
    case .list(let items): object["value"] = items
    }
    switch element.kind {
    case .choice(let options, _): object["options"] = options.map { ["id": $0.id, "label": $0.label] }
    case .slider(let range, let step, let caption):
      object["min"] = range.lowerBound
      object["max"] = range.upperBound
      object["step"] = step
      if let caption { object["caption"] = caption }
    case .text(let limit): object["limit"] = limit
    default: break
    }
    return object
  }
}
