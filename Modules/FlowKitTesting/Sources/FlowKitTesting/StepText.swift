import FlowKit
import Foundation

extension UserAction {
  /// Reads one step in the vocabulary of scripts and `wellflow play`, one action a line:
  ///
  ///     tap continue
  ///     select skill beginner          select labels calm,proud      select labels
  ///     enter notes slept well          enter notes ""
  ///     set score 8
  ///     toggle breathed true            (on/off and yes/no work too)
  ///     back
  ///     close
  public init(step: String) throws(FlowTestError) {
    let text = step.trimmingCharacters(in: .whitespaces)
    let (word, rest) = Self.splitWord(text)
    func invalid(_ form: String) -> FlowTestError {
      .invalidStep(step, reason: "'\(word)' takes \(form)")
    }
    switch word.lowercased() {
    case "back":
      guard rest.isEmpty else { throw invalid("nothing, e.g. `back`") }
      self = .back
    case "close":
      guard rest.isEmpty else { throw invalid("nothing, e.g. `close`") }
      self = .close
    case "tap":
      let (id, extra) = Self.splitWord(rest)
      guard !id.isEmpty, extra.isEmpty else { throw invalid("one id, e.g. `tap continue`") }
      self = .tap(id)
    case "select":
      let (id, list) = Self.splitWord(rest)
      guard !id.isEmpty else { throw invalid("an id and options, e.g. `select labels calm,proud`") }
      let options = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
      self = .select(id, options)
    case "enter":
      let (id, typed) = Self.splitWord(rest)
      guard !id.isEmpty else { throw invalid("an id and text, e.g. `enter notes slept well`") }
      self = .enter(id, Self.unquoted(typed))
    case "set":
      let (id, number) = Self.splitWord(rest)
      guard !id.isEmpty, let value = Double(number), value.isFinite else {
        throw invalid("an id and a number, e.g. `set score 8`")
      }
      self = .set(id, value)
    case "toggle":
      let (id, state) = Self.splitWord(rest)
      let isOn: Bool
      switch state.lowercased() {
      case "true", "on", "yes": isOn = true
      case "false", "off", "no": isOn = false
      default: throw invalid("an id and true or false, e.g. `toggle reminders true`")
      }
      guard !id.isEmpty else { throw invalid("an id and true or false, e.g. `toggle reminders true`") }
      self = .toggle(id, isOn)
    case "":
      throw .invalidStep(step, reason: "an empty step")
    default:
      throw .invalidStep(
        step, reason: "unknown command '\(word)' (commands: tap, select, enter, set, toggle, back, close)")
    }
  }

  /// Reads steps one a line; blank lines and lines starting with `#` are skipped.
  public static func steps(_ text: String) throws(FlowTestError) -> [(step: String, action: UserAction)] {
    var steps: [(String, UserAction)] = []
    for line in text.split(whereSeparator: \.isNewline) {
      let step = line.trimmingCharacters(in: .whitespaces)
      guard !step.isEmpty, !step.hasPrefix("#") else { continue }
      steps.append((step, try UserAction(step: step)))
    }
    return steps
  }

  private static func splitWord(_ text: String) -> (String, String) {
    guard let space = text.firstIndex(where: \.isWhitespace) else { return (text, "") }
    return (String(text[..<space]), text[space...].trimmingCharacters(in: .whitespaces))
  }

  /// `"slept well"` → `slept well`; `""` → empty; anything else as typed.
  private static func unquoted(_ text: String) -> String {
    guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
    return String(text.dropFirst().dropLast())
  }
}
