/// The one rule for a text that names an account: the signed-in user of an
/// app, the `sub` of a bearer token, a script's `user:`, `export --user`. SQLite and file
/// names end a text at its first NUL, so `alice\u{0}x` would be stored and looked up as
/// `alice`: two names the server tells apart would share one account. Here so that the
/// backend and the runner check with the same words.
public enum UserID {
  /// The longest user id, in characters (Unicode scalars, so the bytes are bounded too).
  public static let maxLength = 256

  /// The rule in words, for the end of a message.
  public static let rule = "a user id is 1 to \(maxLength) characters, none of them a control character"

  /// Why `text` cannot name an account ("is empty", "has 257 characters", "holds the
  /// control character U+0000 at character 6"); nil when it can.
  public static func problem(with text: String) -> String? {
    if text.isEmpty { return "is empty" }
    if let control = ControlCharacter.first(in: text) { return "holds \(control)" }
    let count = text.unicodeScalars.count
    return count > maxLength ? "has \(count) characters" : nil
  }
}

/// C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F): characters a name (of an
/// account, an experiment, a file) never holds, which C strings cut at (NUL) and terminals
/// obey.
public enum ControlCharacter {
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// The first control character of `text` and where it is ("the control character
  /// U+0000 at character 6", counting Unicode scalars from 1); nil when there is none.
  public static func first(in text: String) -> String? {
    // Printable ASCII, the usual case, has none.
    if text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return nil }
    for (offset, scalar) in text.unicodeScalars.enumerated() where isControl(scalar) {
      let hex = String(scalar.value, radix: 16, uppercase: true)
      return
        "the control character U+\(String(repeating: "0", count: 4 - hex.count))\(hex) at character \(offset + 1)"
    }
    return nil
  }
}
