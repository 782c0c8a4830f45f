import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A key as the line editor reads it.
public enum LineKey: Equatable, Sendable {
  case character(Character)
  case backspace, delete, left, right, up, down, home, end, enter
  /// Ctrl-D: ends the input on an empty line, else deletes under the cursor.
  case endOfInput
  /// Ctrl-C: drops the line.
  case interrupt
  /// Ctrl-U: clears the line.
  case clearLine
}

/// The line being edited and the lines entered before (up and down walk them).
public struct LineBuffer: Sendable {
  public enum Outcome: Equatable, Sendable {
    case editing
    case submitted(String)
    case ended
  }

  public private(set) var text: [Character] = []
  public private(set) var cursor = 0
  public private(set) var history: [String] = []
  /// History kept at most; the oldest lines go first.
  public static let historyLimit = 500
  private var historyIndex: Int?
  private var draft: [Character] = []

  public init(history: [String] = []) { self.history = history }

  public var line: String { String(text) }

  public mutating func apply(_ key: LineKey) -> Outcome {
    switch key {
    case .character(let character):
      text.insert(character, at: cursor)
      cursor += 1
    case .backspace:
      if cursor > 0 {
        text.remove(at: cursor - 1)
        cursor -= 1
      }
    case .delete:
      if cursor < text.count { text.remove(at: cursor) }
    case .left: cursor = max(cursor - 1, 0)
    case .right: cursor = min(cursor + 1, text.count)
    case .home: cursor = 0
    case .end: cursor = text.count
    case .clearLine:
      text = []
      cursor = 0
    case .up:
      guard !history.isEmpty else { break }
      let index: Int
      if let current = historyIndex {
        index = max(current - 1, 0)
      } else {
        draft = text
        index = history.count - 1
      }
      historyIndex = index
      text = Array(history[index])
      cursor = text.count
    case .down:
      guard let current = historyIndex else { break }
      if current + 1 < history.count {
        historyIndex = current + 1
        text = Array(history[current + 1])
      } else {
        historyIndex = nil
        text = draft
      }
      cursor = text.count
    case .interrupt:
      text = []
      cursor = 0
      historyIndex = nil
      return .submitted("")
    case .endOfInput:
      if text.isEmpty { return .ended }
      if cursor < text.count { text.remove(at: cursor) }
    case .enter:
      let line = String(text)
      if !line.trimmingCharacters(in: .whitespaces).isEmpty, history.last != line {
        history.append(line)
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
      }
      text = []
      cursor = 0
      historyIndex = nil
      draft = []
      return .submitted(line)
    }
    return .editing
  }
}

/// Turns a terminal's bytes into keys: UTF-8 characters, arrows and the usual control keys.
public struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []

  public init() {}

  /// The keys `byte` completes (none while a sequence is unfinished).
  public mutating func feed(_ byte: UInt8) -> [LineKey] {
    pending.append(byte)
    let bytes = pending
    switch bytes[0] {
    case 0x1B:
      guard bytes.count >= 2 else { return [] }
      guard bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") else {
        pending = []
        return []
      }
      guard bytes.count >= 3 else { return [] }
      let last = bytes[bytes.count - 1]
      // Parameters are digits and `;`; the final byte is a letter or `~`.
      if (0x30...0x3B).contains(last), bytes.count < 8 { return [] }
      pending = []
      let parameters = String(decoding: bytes[2..<(bytes.count - 1)], as: UTF8.self)
      switch (last, parameters) {
      case (UInt8(ascii: "A"), _): return [.up]
      case (UInt8(ascii: "B"), _): return [.down]
      case (UInt8(ascii: "C"), _): return [.right]
      case (UInt8(ascii: "D"), _): return [.left]
      case (UInt8(ascii: "H"), _), (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): return [.home]
      case (UInt8(ascii: "F"), _), (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): return [.end]
      case (UInt8(ascii: "~"), "3"): return [.delete]
      default: return []
      }
    case 0x0D, 0x0A:
      pending = []
      return [.enter]
    case 0x7F, 0x08:
      pending = []
      return [.backspace]
    case 0x01:
      pending = []
      return [.home]
    case 0x05:
      pending = []
      return [.end]
    case 0x02:
      pending = []
      return [.left]
    case 0x06:
      pending = []
      return [.right]
    case 0x10:
      pending = []
      return [.up]
    case 0x0E:
      pending = []
      return [.down]
    case 0x03:
      pending = []
      return [.interrupt]
    case 0x04:
      pending = []
      return [.endOfInput]
    case 0x15:
      pending = []
      return [.clearLine]
    case 0x00..<0x20:
      pending = []
      return []
    default:
      // A UTF-8 character: wait for all its bytes.
      let lead = bytes[0]
      let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
      guard bytes.count >= length else { return [] }
      pending = []
      let text = String(decoding: bytes, as: UTF8.self)
      return text.map(LineKey.character)
    }
  }
}

/// Reads lines from a terminal with editing and history (arrow keys, Home/End, Ctrl-A/E/U),
/// in raw mode only while a line is read. Not a terminal: plain `readLine`.
public final class TerminalLineReader {
  private var buffer = LineBuffer()
  private var decoder = KeyDecoder()
  private let output: (String) -> Void

  public init(output: @escaping (String) -> Void = { StandardStreams.out($0) }) {
    self.output = output
  }

  public static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

  /// The next line after showing `prompt`; nil at the end of the input.
  public func readLine(prompt: String) -> String? {
    guard Self.isTerminal else {
      output(prompt)
      return Swift.readLine(strippingNewline: true)
    }
    var saved = termios()
    guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
      output(prompt)
      return Swift.readLine(strippingNewline: true)
    }
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    defer { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    redraw(prompt)
    while true {
      var byte: UInt8 = 0
      let count = read(STDIN_FILENO, &byte, 1)
      if count < 0, errno == EINTR { continue }
      guard count == 1 else {
        output("\r\n")
        return nil
      }
      for key in decoder.feed(byte) {
        switch buffer.apply(key) {
        case .editing: redraw(prompt)
        case .submitted(let line):
          if key == .interrupt { output("^C") }
          output("\r\n")
          return line
        case .ended:
          output("\r\n")
          return nil
        }
      }
    }
  }

  private func redraw(_ prompt: String) {
    var text = "\r\u{1B}[K" + prompt + buffer.line
    let back = buffer.text.count - buffer.cursor
    if back > 0 { text += "\u{1B}[\(back)D" }
    output(text)
  }
}
