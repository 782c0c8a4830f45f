import Testing

@testable import WellflowScript

/// `expect: {text: …}` finds its text in a line of the screen exactly where the standard
/// library's `firstRange(of:)` does, Character by Character.
@Suite struct TextOnScreenTests {
  @Test func textOccursWhereFirstRangeFindsIt() {
    let lines = ["", "abc", "e\u{301}x", "éx", "a👍🏽b", "aaab", "ab", "\r\n", "x\r\ny", "How are you feeling?"]
    let texts = ["", "b", "e", "e\u{301}", "é", "👍", "👍🏽", "aab", "abc", "\r", "\r\n", "feeling?", "Feeling"]
    for line in lines {
      for text in texts {
        #expect(
          ScriptRunner.occurs(text, in: line) == (line.firstRange(of: text) != nil),
          "\(text.debugDescription) in \(line.debugDescription)")
      }
    }
  }
}
