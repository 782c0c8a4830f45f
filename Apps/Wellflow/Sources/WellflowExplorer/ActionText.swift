import FlowKit
import Foundation
import YAMLTree

extension UserAction {
  /// The action as `wellflow play` reads it and graphs label it: `select labels calm,proud`.
  public var command: String {
    switch self {
    case .tap(let id): "tap \(id)"
    case .select(let id, let options):
      options.isEmpty ? "select \(id)" : "select \(id) \(options.joined(separator: ","))"
    case .enter(let id, let text): "enter \(id) \(text.isEmpty ? "\"\"" : text)"
    case .set(let id, let value): "set \(id) \(formatNumber(value))"
    case .toggle(let id, let isOn): "toggle \(id) \(isOn)"
    case .back: "back"
    case .close: "close"
    }
  }

  /// The action as a script step, ready to paste into a script: `- select: {labels: [calm, proud]}`.
  public var scriptStep: String {
    switch self {
    case .tap(let id): "- tap: \(yamlScalar(id))"
    case .select(let id, let options):
      options.count == 1
        ? "- select: {\(yamlScalar(id)): \(yamlScalar(options[0]))}"
        : "- select: {\(yamlScalar(id)): [\(options.map(yamlScalar).joined(separator: ", "))]}"
    case .enter(let id, let text): "- enter: {\(yamlScalar(id)): \(yamlQuoted(text))}"
    case .set(let id, let value): "- set: {\(yamlScalar(id)): \(formatNumber(value))}"
    case .toggle(let id, let isOn): "- toggle: {\(yamlScalar(id)): \(isOn)}"
    case .back: "- back"
    case .close: "- close"
    }
  }
}

/// One step of an explored sequence: an action on the screen, or moving the host's
/// clock to the next timer a flow scheduled.
public enum ExploreStep: Sendable, Equatable {
  case action(UserAction)
  /// Moves the clock by exactly this many seconds (to the next pending timer).
  case advance(seconds: Double)

  public static func tap(_ id: String) -> ExploreStep { .action(.tap(id)) }
  public static func select(_ id: String, _ options: [String]) -> ExploreStep {
    .action(.select(id, options))
  }
  public static func enter(_ id: String, _ text: String) -> ExploreStep { .action(.enter(id, text)) }
  public static func set(_ id: String, _ value: Double) -> ExploreStep { .action(.set(id, value)) }
  public static func toggle(_ id: String, _ isOn: Bool) -> ExploreStep { .action(.toggle(id, isOn)) }
  public static var back: ExploreStep { .action(.back) }
  public static var close: ExploreStep { .action(.close) }

  /// As `wellflow play` reads an action and graphs label it: `tap continue`, `advance 90s`.
  public var command: String {
    switch self {
    case .action(let action): action.command
    case .advance(let seconds): "advance \(Self.duration(seconds))"
    }
  }

  /// As a script step: `- tap: continue`, `- advance: 90s`.
  public var scriptStep: String {
    switch self {
    case .action(let action): action.scriptStep
    case .advance(let seconds): "- advance: \(Self.duration(seconds))"
    }
  }

  /// Seconds as a script's `advance` reads them, exactly: `90s`, `0.35s`.
  public static func duration(_ seconds: Double) -> String {
    let seconds = max(seconds, 0)
    if seconds.rounded() == seconds, seconds < 1e15 { return "\(Int64(seconds))s" }
    var text = String(format: "%.9f", seconds)
    while text.hasSuffix("0") { text.removeLast() }
    return text + "s"
  }
}

/// A plain YAML scalar when it reads back as the same text, else a quoted one.
/// Digits stay plain: option ids compare as text (`1` names option `1`).
public func yamlScalar(_ text: String) -> String {
  let plain = text.unicodeScalars.allSatisfy { scalar in
    scalar.isASCII
      && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
        || "._-".unicodeScalars.contains(scalar))
  }
  let words: Set<String> = ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"]
  guard plain, !text.isEmpty, !words.contains(text.lowercased()), !text.hasPrefix("-") else {
    return yamlQuoted(text)
  }
  return text
}

/// Control and format characters (ESC, U+202E, …) and the line breaks YAML counts as
/// breaks are written as escapes: a script holds no invisible character, and one that
/// reorders or hides the text around it shows as what it is.
func yamlQuoted(_ text: String) -> String {
  var quoted = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": quoted += "\\\""
    case "\\": quoted += "\\\\"
    case "\n": quoted += "\\n"
    case "\t": quoted += "\\t"
    case "\r": quoted += "\\r"
    // Joiners shape emoji and scripts (Arabic, Indic): kept as typed.
    case "\u{200C}", "\u{200D}": quoted.unicodeScalars.append(scalar)
    default:
      switch scalar.properties.generalCategory {
      case .control, .format, .lineSeparator, .paragraphSeparator:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        quoted += scalar.value > 0xFFFF ? "\\U" + hex.leftPadded(to: 8) : "\\u" + hex.leftPadded(to: 4)
      default: quoted.unicodeScalars.append(scalar)
      }
    }
  }
  // Text typed as `${…}` must stay text, not name a script variable.
  return quoted.replacingOccurrences(of: "${", with: "$${") + "\""
}

/// One line typed into `wellflow play`.
public enum PlayInput: Equatable, Sendable {
  case action(UserAction)
  case help
  case screen
  case quit

  /// The commands `play` reads, one a line, in the script vocabulary.
  public static let commands = """
    commands (one a line, in the script vocabulary):
      tap ID                    press a button or an alert button
      select ID OPTION[,OPTION] choose options (a multiple choice takes the whole list; none: select ID)
      enter ID TEXT             type text (enter ID "" clears it)
      set ID NUMBER             move a slider
      toggle ID true|false      flip a toggle
      back, close               the screen's back and close
      screen                    show the screen again
      help                      this list
      quit                      leave the flow as it is
    """

  /// Reads one line; the message names what is wrong and how the command goes.
  public static func parse(_ line: String) -> Result<PlayInput, PlayInputError> {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    let (word, rest) = splitWord(trimmed)
    func usage(_ form: String) -> Result<PlayInput, PlayInputError> {
      .failure(PlayInputError(message: "'\(word)' takes \(form), e.g. `\(word) \(form)`"))
    }
    switch word.lowercased() {
    case "help", "?": return rest.isEmpty ? .success(.help) : usage("nothing")
    case "screen": return .success(.screen)
    case "quit", "exit": return .success(.quit)
    case "back": return rest.isEmpty ? .success(.action(.back)) : usage("nothing")
    case "close": return rest.isEmpty ? .success(.action(.close)) : usage("nothing")
    case "tap":
      let (id, extra) = splitWord(rest)
      guard !id.isEmpty, extra.isEmpty else {
        return .failure(PlayInputError(message: "tap takes one id, e.g. `tap continue`"))
      }
      return .success(.action(.tap(id)))
    case "select":
      let (id, list) = splitWord(rest)
      guard !id.isEmpty else {
        return .failure(
          PlayInputError(message: "select takes an id and options, e.g. `select labels calm,proud`"))
      }
      let options = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
      return .success(.action(.select(id, options)))
    case "enter":
      let (id, text) = splitWord(rest)
      guard !id.isEmpty else {
        return .failure(
          PlayInputError(message: "enter takes an id and text, e.g. `enter response slept well`"))
      }
      return .success(.action(.enter(id, unquoted(text))))
    case "set":
      let (id, number) = splitWord(rest)
      guard !id.isEmpty, let value = Double(number) else {
        return .failure(PlayInputError(message: "set takes an id and a number, e.g. `set score 8`"))
      }
      return .success(.action(.set(id, value)))
    case "toggle":
      let (id, state) = splitWord(rest)
      let value: Bool? =
        switch state.lowercased() {
        case "true", "on", "yes": true
        case "false", "off", "no": false
        default: nil
        }
      guard !id.isEmpty, let value else {
        return .failure(
          PlayInputError(message: "toggle takes an id and true or false, e.g. `toggle reminders true`"))
      }
      return .success(.action(.toggle(id, value)))
    default:
      return .failure(
        PlayInputError(
          message:
            "unknown command '\(word)' (commands: tap, select, enter, set, toggle, back, close, screen, help, quit)"
        ))
    }
  }

  private static func splitWord(_ text: String) -> (String, String) {
    guard let space = text.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (text, "") }
    return (String(text[..<space]), text[space...].trimmingCharacters(in: .whitespaces))
  }

  private static func unquoted(_ text: String) -> String {
    guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
    return String(text.dropFirst().dropLast())
  }
}

public struct PlayInputError: Error, Equatable, CustomStringConvertible {
  public var message: String
  public init(message: String) { self.message = message }
  public var description: String { message }
}
