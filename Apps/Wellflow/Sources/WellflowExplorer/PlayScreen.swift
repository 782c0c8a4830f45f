import FlowKit
import Foundation

/// How `wellflow play` draws a screen in the terminal: labels beside the ids a command
/// names, captions, slider ranges, a text field's limit, the alert's message. Long option
/// lists are drawn once per screen and named by count on later redraws (`screen` draws
/// them again).
public struct PlayScreen {
  /// Lists of more options than this are drawn once per screen.
  public static let longList = 8
  /// The long lists already drawn, by screen, element and options.
  private var drawn: Set<String> = []

  public init() {}

  /// The screen as lines; `full` draws every option list.
  public mutating func describe(_ screen: Screen, full: Bool = false) -> String {
    var lines = [
      "current screen: \(screen.id) \"\(screen.title)\"" + (screen.progress.map { " (step \($0))" } ?? "")
    ]
    if let message = screen.message { lines.append("  message: \(message)") }
    for element in screen.elements {
      let disabled = element.isEnabled ? "" : " (disabled)"
      switch element.kind {
      case .button:
        lines.append("  \(element.id): button \"\(element.label)\"\(disabled)")
      case .choice(let options, let multiple):
        let chosen = Set(Self.chosen(element.value))
        let chosenText =
          options.filter { chosen.contains($0.id) }.map { Self.option($0) }.joined(separator: ", ")
        lines.append(
          "  \(element.id): \(multiple ? "multiple" : "single") choice \"\(element.label)\" = \(chosenText.isEmpty ? (multiple ? "[]" : "none") : chosenText)\(disabled)"
        )
        let key = "\(screen.id)/\(element.id)/\(options.map(\.id).joined(separator: ","))"
        if options.count > Self.longList, !full, drawn.contains(key) {
          lines.append("    (\(options.count) options, listed before; `screen` lists them again)")
        } else {
          drawn.insert(key)
          lines += Self.optionLines(options, chosen: chosen)
        }
      case .text(let limit):
        let text = if case .text(let text) = element.value { text } else { "" }
        lines.append(
          "  \(element.id): text field \"\(element.label)\" (up to \(limit) characters) = \(ElementValue.text(text))\(disabled)"
        )
      case .slider(let range, let step, let caption):
        let number = if case .number(let value) = element.value { formatNumber(value) } else { "none" }
        lines.append(
          "  \(element.id): slider \"\(element.label)\" \(formatNumber(range.lowerBound))…\(formatNumber(range.upperBound)) step \(formatNumber(step)) = \(number)\(caption.map { " (\($0))" } ?? "")\(disabled)"
        )
      case .toggle:
        lines.append(
          "  \(element.id): toggle \"\(element.label)\" = \(element.value == .bool(true) ? "on" : "off")\(disabled)"
        )
      case .info:
        let value = if case .text(let text) = element.value { text } else { element.value.description }
        lines.append("  \(element.id): \(element.label): \(value)")
      }
    }
    var moves: [String] = []
    if screen.canGoBack { moves.append("back") }
    if screen.canClose { moves.append("close") }
    if !moves.isEmpty { lines.append("  (\(moves.joined(separator: ", ")) available)") }
    if let alert = screen.alert {
      lines.append("  alert \(alert.id): \"\(alert.title)\" — \(alert.message)")
      lines.append(
        "    buttons: \(alert.buttons.map { "\($0.id) \"\($0.label)\"" }.joined(separator: ", "))  (tap ID)")
    }
    return lines.joined(separator: "\n")
  }

  static func chosen(_ value: ElementValue) -> [String] {
    switch value {
    case .text(let id): [id]
    case .list(let ids): ids
    default: []
    }
  }

  /// `happy` when the label only capitalizes the id, else `1 "Fear of rejection"`.
  package static func option(_ option: ChoiceOption) -> String {
    option.label.lowercased() == option.id.lowercased() ? option.id : "\(option.id) \"\(option.label)\""
  }

  /// Options whose labels just name the id share lines; others get a line each.
  static func optionLines(_ options: [ChoiceOption], chosen: Set<String>) -> [String] {
    let plain = options.allSatisfy { $0.label.lowercased() == $0.id.lowercased() }
    guard plain else {
      let width = min(options.map(\.id.count).max() ?? 0, 16)
      return options.map { option in
        "    \(chosen.contains(option.id) ? "*" : " ") \(option.id.padding(toLength: max(width, option.id.count), withPad: " ", startingAt: 0))  \(option.label)"
      }
    }
    var lines: [String] = []
    var line = "    options:"
    for option in options {
      let word = (chosen.contains(option.id) ? "*" : "") + option.id
      if line.count + word.count + 2 > 96 {
        lines.append(line)
        line = "     "
      }
      line += " " + word + ","
    }
    if line.hasSuffix(",") { line.removeLast() }
    lines.append(line)
    return lines
  }
}
