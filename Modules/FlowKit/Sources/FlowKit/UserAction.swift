/// What a person does on a screen: tap, select, enter, set, toggle, back, close.
public enum UserAction: Sendable, Equatable, CustomStringConvertible {
  case tap(String)
  /// Chooses options of a choice: one id for a single choice, exactly the list given
  /// for a multiple choice.
  case select(String, [String])
  case enter(String, String)
  case set(String, Double)
  case toggle(String, Bool)
  case back
  case close

  public var name: String {
    switch self {
    case .tap: "tap"
    case .select: "select"
    case .enter: "enter"
    case .set: "set"
    case .toggle: "toggle"
    case .back: "back"
    case .close: "close"
    }
  }

  public var elementID: String? {
    switch self {
    case .tap(let id), .select(let id, _), .enter(let id, _), .set(let id, _), .toggle(let id, _): id
    case .back, .close: nil
    }
  }

  /// Free text is left out on purpose: descriptions end up in transcripts and logs.
  public var description: String {
    switch self {
    case .tap(let id): "tap \(id)"
    case .select(let id, let options): "select \(id): \(options.joined(separator: ", "))"
    case .enter(let id, let text): "enter \(id): \(text.count) characters"
    case .set(let id, let value): "set \(id): \(formatNumber(value))"
    case .toggle(let id, let isOn): "toggle \(id): \(isOn)"
    case .back: "back"
    case .close: "close"
    }
  }
}

/// An action that does not fit the current screen. Never a crash: the message names
/// the screen and the element so a script author can fix the step.
public struct ActionError: Error, Equatable, CustomStringConvertible {
  public enum Problem: Equatable, Sendable {
    case unknownElement(available: [String])
    case disabled
    case wrongKind(action: String, kind: String)
    case unknownOption(String, available: [String])
    case singleChoiceTakesOne(given: Int)
    case textTooLong(limit: Int, length: Int)
    /// A NUL: stores cut text at it (SQLite's C strings), so a text field refuses it.
    case textHasNUL(at: Int)
    case outOfRange(Double, ClosedRange<Double>)
    case offStep(Double, step: Double)
    case alertIsUp(alert: String, buttons: [String])
    case unknownAlertButton(alert: String, buttons: [String])
    case backUnavailable
    case closeUnavailable
    case flowEnded
    /// A flow-specific refusal, already phrased for a person.
    case refused(String)
  }

  public var screen: String
  public var element: String?
  public var problem: Problem

  public init(screen: String, element: String? = nil, problem: Problem) {
    self.screen = screen
    self.element = element
    self.problem = problem
  }

  public var description: String {
    let subject = element.map { "'\($0)'" } ?? ""
    switch problem {
    case .unknownElement(let available):
      return "\(screen) has no element \(subject) (elements: \(available.joined(separator: ", ")))"
    case .disabled:
      return "\(screen): \(subject) is disabled"
    case .wrongKind(let action, let kind):
      let article = kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
      return "\(screen): cannot \(action) \(subject), it is \(article) \(kind)"
    case .unknownOption(let option, let available):
      return "\(screen): \(subject) has no option '\(option)' (options: \(available.joined(separator: ", ")))"
    case .singleChoiceTakesOne(let given):
      return "\(screen): \(subject) is a single choice and takes one option, got \(given)"
    case .textTooLong(let limit, let length):
      return "\(screen): \(subject) takes at most \(limit) characters, got \(length)"
    case .textHasNUL(let position):
      return "\(screen): \(subject) takes no NUL character (U+0000), got one at character \(position)"
    case .outOfRange(let value, let range):
      return
        "\(screen): \(subject) goes from \(formatNumber(range.lowerBound)) to \(formatNumber(range.upperBound)), got \(formatNumber(value))"
    case .offStep(let value, let step):
      return "\(screen): \(subject) moves in steps of \(formatNumber(step)), got \(formatNumber(value))"
    case .alertIsUp(let alert, let buttons):
      return
        "\(screen): alert \(alert) is up; only its buttons accept input (\(buttons.joined(separator: ", ")))"
    case .unknownAlertButton(let alert, let buttons):
      return
        "\(screen): alert \(alert) has no button \(subject) (buttons: \(buttons.joined(separator: ", ")))"
    case .backUnavailable:
      return "\(screen): back is not available here"
    case .closeUnavailable:
      return "\(screen): close is not available here"
    case .flowEnded:
      return "\(screen): the flow has already ended"
    case .refused(let reason):
      return "\(screen): \(reason)"
    }
  }
}

extension Screen {
  /// Checks an action against what the screen shows. Coordinators receive only
  /// actions that passed, so each feature does not re-implement these rules.
  public func validate(_ action: UserAction) throws(ActionError) {
    if let alert {
      let buttons = alert.buttons.map(\.id)
      guard case .tap(let id) = action else {
        throw ActionError(
          screen: self.id, element: action.elementID, problem: .alertIsUp(alert: alert.id, buttons: buttons))
      }
      guard buttons.contains(id) else {
        throw ActionError(
          screen: self.id, element: id, problem: .unknownAlertButton(alert: alert.id, buttons: buttons))
      }
      return
    }
    switch action {
    case .back:
      guard canGoBack else { throw ActionError(screen: id, problem: .backUnavailable) }
      return
    case .close:
      guard canClose else { throw ActionError(screen: id, problem: .closeUnavailable) }
      return
    default: break
    }
    guard let elementID = action.elementID else { return }
    guard let element = element(elementID) else {
      throw ActionError(
        screen: id, element: elementID, problem: .unknownElement(available: elements.map(\.id)))
    }
    func wrongKind() -> ActionError {
      ActionError(
        screen: id, element: elementID, problem: .wrongKind(action: action.name, kind: element.kind.name))
    }
    guard element.kind != .info else { throw wrongKind() }
    guard element.isEnabled else { throw ActionError(screen: id, element: elementID, problem: .disabled) }
    switch (action, element.kind) {
    case (.tap, .button):
      return
    case (.select(_, let chosen), .choice(let options, let multiple)):
      if !multiple, chosen.count != 1 {
        throw ActionError(screen: id, element: elementID, problem: .singleChoiceTakesOne(given: chosen.count))
      }
      let known = options.map(\.id)
      if let unknown = chosen.first(where: { !known.contains($0) }) {
        throw ActionError(screen: id, element: elementID, problem: .unknownOption(unknown, available: known))
      }
    case (.enter(_, let text), .text(let limit)):
      if text.count > limit {
        throw ActionError(
          screen: id, element: elementID, problem: .textTooLong(limit: limit, length: text.count))
      }
      if let nul = text.firstIndex(of: "\u{0}") {
        throw ActionError(
          screen: id, element: elementID,
          problem: .textHasNUL(at: text.distance(from: text.startIndex, to: nul) + 1))
      }
    case (.set(_, let value), .slider(let range, let step, _)):
      guard range.contains(value) else {
        throw ActionError(screen: id, element: elementID, problem: .outOfRange(value, range))
      }
      let steps = (value - range.lowerBound) / step
      if abs(steps - steps.rounded()) > 1e-9 {
        throw ActionError(screen: id, element: elementID, problem: .offStep(value, step: step))
      }
    case (.toggle, .toggle):
      return
    default:
      throw wrongKind()
    }
  }
}
