import FlowKit
import Testing

@Suite("Terminal-safe text")
struct TerminalTextTests {
  @Test func plainTextIsReturnedAsItIs() {
    #expect(terminalSafe("Calm — très bien 😌") == "Calm — très bien 😌")
    #expect(terminalSafe("") == "")
    #expect(terminalSafe("a\\u{1B}b") == "a\\u{1B}b")
  }

  @Test func controlsAreEscapedAsSwiftWritesThem() {
    #expect(terminalSafe("\u{1B}[2Jname") == "\\u{1B}[2Jname")
    #expect(terminalSafe("a\u{0}b\u{7}c\tz\nq\r\n") == "a\\u{0}b\\u{7}c\\u{9}z\\u{A}q\\u{D}\\u{A}")
    #expect(terminalSafe("\u{7F}\u{80}\u{9B}\u{9F}\u{A0}") == "\\u{7F}\\u{80}\\u{9B}\\u{9F}\u{A0}")
    // An OSC 52 clipboard write, as a script's name could carry it.
    #expect(terminalSafe("\u{1B}]52;c;aGk=\u{7}") == "\\u{1B}]52;c;aGk=\\u{7}")
  }

  @Test func bidirectionalMarksAndOverridesAreEscaped() {
    let escaped = [0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
    for value in escaped {
      let scalar = Unicode.Scalar(UInt32(value))!
      let hex = String(value, radix: 16, uppercase: true)
      #expect(terminalSafe("a\(Character(scalar))b") == "a\\u{\(hex)}b")
    }
    // Their neighbours are shown as they are (a zero-width joiner keeps emoji whole).
    for value in [0x200D, 0x2010, 0x2029, 0x202F, 0x2065, 0x206A] {
      let text = "a" + String(Character(Unicode.Scalar(UInt32(value))!)) + "b"
      #expect(terminalSafe(text) == text)
    }
  }

  @Test func longTextIsClippedToTheLimitWithAnEllipsis() {
    #expect(terminalSafe("abcdef", limit: 4) == "abc…")
    #expect(terminalSafe("abcd", limit: 4) == "abcd")
    #expect(terminalSafe("abc", limit: 4) == "abc")
    #expect(terminalSafe("abcdef", limit: 1) == "…")
    #expect(terminalSafe("abcdef", limit: 0) == "…")
    #expect(terminalSafe("a", limit: 0) == "a")
    // Characters, not bytes or scalars: a flag or an accented letter is never cut.
    #expect(terminalSafe("🇫🇷🇩🇪e\u{301}xyz", limit: 4) == "🇫🇷🇩🇪e\u{301}…")
    #expect(terminalSafe("ééé", limit: 3) == "ééé")
    // An escaped control counts as the one character it was.
    #expect(terminalSafe("\u{1B}\u{1B}\u{1B}\u{1B}", limit: 3) == "\\u{1B}\\u{1B}…")
    #expect(
      terminalSafe(String(repeating: "x", count: 100), limit: 64) == String(repeating: "x", count: 63) + "…")
  }

  /// A million-character name is clipped after reading its first characters; unclipped it
  /// is escaped in one pass (this would take minutes if each character copied the result).
  @Test func aMillionCharacterNameIsClippedOrEscapedInOnePass() {
    let huge = String(repeating: "v\u{1B}", count: 500_000)
    #expect(terminalSafe(huge, limit: 5) == "v\\u{1B}v\\u{1B}…")
    let escaped = terminalSafe(huge)
    #expect(escaped.utf8.count == 500_000 * 7)
    #expect(escaped.hasPrefix("v\\u{1B}v"))
  }
}
