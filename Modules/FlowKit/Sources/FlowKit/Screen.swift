/// What a flow shows at one step: the accessibility tree that a native view binds to
/// and that scripts and the terminal player read. Ids are stable: scripts and
/// native views bind to them, so renaming one is a breaking change.
public struct Screen: Sendable, Equatable {
  public var id: String
  public var title: String
  public var message: String?
  public var progress: StepProgress?
  public var elements: [Element]
  public var alert: Alert?
  /// Whether `back` and `close` do something here.
  public var canGoBack: Bool
  public var canClose: Bool

  public init(
    id: String, title: String, message: String? = nil, progress: StepProgress? = nil,
    elements: [Element] = [], alert: Alert? = nil, canGoBack: Bool = false, canClose: Bool = false
  ) {
    self.id = id
    self.title = title
    self.message = message
    self.progress = progress
    self.elements = elements
    self.alert = alert
    self.canGoBack = canGoBack
    self.canClose = canClose
  }

  public func element(_ id: String) -> Element? { elements.first { $0.id == id } }

  /// Every piece of text a person would read on the screen, alert included.
  public var visibleText: [String] {
    var texts = [title]
    if let message { texts.append(message) }
    for element in elements {
      texts.append(element.label)
      switch element.kind {
      case .choice(let options, _): texts += options.map(\.label)
      case .slider(_, _, let caption): if let caption { texts.append(caption) }
      default: break
      }
      if element.kind == .info, case .text(let text) = element.value { texts.append(text) }
    }
    if let alert {
      texts += [alert.title, alert.message] + alert.buttons.map(\.label)
    }
    return texts
  }
}

/// "Step i of n" (a page indicator).
public struct StepProgress: Sendable, Equatable, CustomStringConvertible {
  public var index: Int
  public var count: Int
  public init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }
  public var description: String { "\(index) of \(count)" }
}

public struct ChoiceOption: Sendable, Equatable {
  public var id: String
  public var label: String
  public init(id: String, label: String) {
    self.id = id
    self.label = label
  }
}

public enum ElementKind: Sendable, Equatable {
  case button
  case choice(options: [ChoiceOption], multiple: Bool)
  case text(limit: Int)
  case slider(range: ClosedRange<Double>, step: Double, caption: String?)
  case toggle
  case info

  public var name: String {
    switch self {
    case .button: "button"
    case .choice(_, let multiple): multiple ? "multiple choice" : "single choice"
    case .text: "text field"
    case .slider: "slider"
    case .toggle: "toggle"
    case .info: "info"
    }
  }
}

/// An element's value: single choice → option id or none, multi choice →
/// ids, slider/info → number (info may be text), text → string, toggle → bool.
public enum ElementValue: Sendable, Equatable, CustomStringConvertible {
  case none
  case text(String)
  case number(Double)
  case bool(Bool)
  case list([String])

  public var description: String {
    switch self {
    case .none: "none"
    case .text(let text): "\"\(text)\""
    case .number(let number): formatNumber(number)
    case .bool(let bool): "\(bool)"
    case .list(let items): "[\(items.joined(separator: ", "))]"
    }
  }
}

/// Text a person typed, as events, logs, failure output and reports show it (as its
/// length, never as itself): `text field, 19 characters`.
public func describeFreeText(_ text: String) -> String {
  text.isEmpty ? "text field, empty" : "text field, \(text.count) character\(text.count == 1 ? "" : "s")"
}

extension Element {
  /// The value as failure output and reports show it: a text field's text as its length.
  public var shownValue: String {
    if case .text = kind, case .text(let text) = value { return describeFreeText(text) }
    return value.description
  }
}

/// Integers print without a fraction, others with up to four digits.
public func formatNumber(_ number: Double) -> String {
  if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
  // Huge or infinite values in exponent form, not hundreds of digits.
  if !number.isFinite || abs(number) >= 1e15 { return "\(number)" }
  var text = String(format: "%.4f", number)
  while text.hasSuffix("0") { text.removeLast() }
  return text
}

public struct Element: Sendable, Equatable {
  public var id: String
  public var label: String
  public var kind: ElementKind
  public var isEnabled: Bool
  public var value: ElementValue

  public init(
    id: String, label: String, kind: ElementKind, isEnabled: Bool = true, value: ElementValue = .none
  ) {
    self.id = id
    self.label = label
    self.kind = kind
    self.isEnabled = isEnabled
    self.value = value
  }

  /// What a screen reader names the element by: its visible label.
  public var accessibilityLabel: String { label }

  /// What a screen reader reads as the element's value, nil where it has none: a
  /// slider's number and caption (`7, Pleasant`), a choice's chosen option labels (in the
  /// screen's order), a text field's text, an info's value. Buttons have none; a toggle's
  /// state is its checked state (`aria-checked`, UIKit's switch trait), read in the
  /// reader's own language.
  public var accessibilityValue: String? {
    switch (kind, value) {
    case (.slider(_, _, let caption), .number(let number)):
      return caption.map { "\(formatNumber(number)), \($0)" } ?? formatNumber(number)
    case (.choice(let options, _), .text(let id)):
      return options.first { $0.id == id }?.label ?? id
    case (.choice(let options, _), .list(let ids)):
      return options.filter { ids.contains($0.id) }.map(\.label).joined(separator: ", ")
    case (.text, .text(let text)), (.info, .text(let text)):
      return text
    case (.info, .number(let number)):
      return formatNumber(number)
    default:
      return nil
    }
  }

  public static func button(_ id: String, _ label: String, enabled: Bool = true) -> Element {
    Element(id: id, label: label, kind: .button, isEnabled: enabled)
  }

  public static func singleChoice(_ id: String, _ label: String, options: [ChoiceOption], selected: String?)
    -> Element
  {
    Element(
      id: id, label: label, kind: .choice(options: options, multiple: false),
      value: selected.map(ElementValue.text) ?? .none)
  }

  public static func multipleChoice(
    _ id: String, _ label: String, options: [ChoiceOption], selected: [String]
  )
    -> Element
  {
    Element(id: id, label: label, kind: .choice(options: options, multiple: true), value: .list(selected))
  }

  public static func text(_ id: String, _ label: String, limit: Int, text: String) -> Element {
    Element(id: id, label: label, kind: .text(limit: limit), value: .text(text))
  }

  public static func slider(
    _ id: String, _ label: String, range: ClosedRange<Double>, step: Double, value: Double,
    caption: String? = nil
  ) -> Element {
    Element(
      id: id, label: label, kind: .slider(range: range, step: step, caption: caption), value: .number(value))
  }

  public static func toggle(_ id: String, _ label: String, isOn: Bool) -> Element {
    Element(id: id, label: label, kind: .toggle, value: .bool(isOn))
  }

  public static func info(_ id: String, _ label: String, value: ElementValue) -> Element {
    Element(id: id, label: label, kind: .info, value: value)
  }
}

public struct AlertButton: Sendable, Equatable {
  public var id: String
  public var label: String
  public init(id: String, label: String) {
    self.id = id
    self.label = label
  }
}

public struct Alert: Sendable, Equatable {
  public var id: String
  public var title: String
  public var message: String
  public var buttons: [AlertButton]
  public init(id: String, title: String, message: String, buttons: [AlertButton]) {
    self.id = id
    self.title = title
    self.message = message
    self.buttons = buttons
  }
}
