import Foundation
import StrictJSON
import Testing

/// The one strict JSON reader, which replaced Foundation's on the backend's request path,
/// in the events report and for GrowthBook's values: it must accept, refuse and read
/// exactly what Foundation's decoder does.
@Suite struct StrictJSONTests {
  static let documents = [
    "{}", "[]", "1", "-0", "07", "+7", ".5", "1.", "1e", "1e400", "-1e400", "1e308", "1e-400", "4.9e-324",
    "NaN",
    "Infinity", "0x7", "true", "tru", "null", "nul", #""a\u0000b""#, #""\ud800""#, #""\udc00""#,
    #""\ud83d\ude00""#, #""\uD83D\u0041""#, "\"a\tb\"", #""\x""#, "[1,]", #"{"a":1,}"#, "[,]", "[1,,]", "{,}",
    #"{"a" 1}"#, "[1 2]", #" {"a" : [ 1 , 2 ] } "#, #"{"a":1}x"#, #"{"a":1,"a":2}"#, "9223372036854775808",
    "1E+2", "1e-2", "-", "--1", "\"é\"", "[", #"{"a":"#, #""abc"#, "1 2", "", "\u{FEFF}{}",
    #"{"type": "mood_score", "quantity": 7.0, "logged_at": "2026-03-02", "notes": "tea \"hot\" \\ \/ \n"}"#,
    #"[1, 2.5e3, -0.0, true, false, null, {"a": [ ]}, "x\n"]"#, #""\/\b\f\n\r\t""#,
  ]

  @Test func theParserReadsWhatFoundationsDecoderReads() {
    for text in Self.documents {
      let data = Data(text.utf8)
      let expected = try? JSONDecoder().decode(JSONValue.self, from: data)
      #expect((try? JSONValue.parse(data)) == expected, "\(text.debugDescription)")
    }
    for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x7B, 0x7D, 0x00]] {
      #expect((try? JSONValue.parse(Data(bytes))) == nil)
    }
    // Nesting is bounded, not a crash.
    for depth in [JSONScanner.maxDepth, JSONScanner.maxDepth + 1, 100_000] {
      let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
      #expect(((try? JSONValue.parse(Data(text.utf8))) != nil) == (depth <= JSONScanner.maxDepth))
    }
  }

  @Test func anObjectsMembersComeInOrderWithEveryRepeat() throws {
    var names: [String] = []
    var values: [JSONValue] = []
    let text = Array(#" {"b": 1, "a": [true, {"x": null}], "b": "two",} "#.utf8)
    try text.withUnsafeBufferPointer { (bytes) throws(JSONSyntaxError) in
      var scanner = JSONScanner(bytes: bytes)
      scanner.skipWhitespace()
      try scanner.members { (name, scanner) throws(JSONSyntaxError) in
        names.append(name)
        values.append(try scanner.value(depth: 1))
      }
      scanner.skipWhitespace()
      #expect(scanner.isAtEnd)
    }
    #expect(names == ["b", "a", "b"])
    #expect(values == [1, [true, ["x": nil]], "two"])
    // A whole document keeps a repeated name's first value, as Foundation's decoder does.
    #expect(try JSONValue.parse(Data(text)) == ["b": 1, "a": [true, ["x": nil]]])
  }

  /// A reader that looks for known names reads them where they stand (`rawMembers`),
  /// compares their bytes and makes text only of those it keeps: escaped and non-ASCII
  /// names read as `members` reads them, and every problem is the same, at the same byte.
  @Test func rawNamesReadAsNamesDo() throws {
    let text = Array(#"{"ts": 1, "t\u0073": 2, "é": 3, "user": "a\"b", "tsx": 4}"#.utf8)
    var names: [String] = []
    var plain: [Bool] = []
    var isTS: [Bool] = []
    try text.withUnsafeBufferPointer { (bytes) throws(JSONSyntaxError) in
      var scanner = JSONScanner(bytes: bytes)
      try scanner.rawMembers { (name, scanner) throws(JSONSyntaxError) in
        names.append(scanner.text(of: name))
        plain.append(name.isPlain)
        isTS.append(name.equals("ts", in: scanner))
        if scanner.peek == UInt8(ascii: "\"") {
          let value = try scanner.rawString()
          #expect(scanner.text(of: value) == #"a"b"#)
          #expect(!value.isPlain)
        } else {
          _ = try scanner.value(depth: 1)
        }
      }
      #expect(scanner.isAtEnd)
    }
    #expect(names == ["ts", "ts", "é", "user", "tsx"])
    #expect(plain == [true, false, false, true, true])
    #expect(isTS == [true, true, false, false, false])

    let bad: [[UInt8]] = [
      Array(#"{"a\x": 1}"#.utf8), Array(#"{"\ud800": 1}"#.utf8), [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],
      [0x7B, 0x22, 0x61, 0x01, 0x22, 0x3A, 0x31, 0x7D], Array(#"{"a": "b"#.utf8), Array(#"{"a"#.utf8),
      Array(#"{"a": "\u00"}"#.utf8), [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x22, 0x7D],
      Array(#"{a: 1}"#.utf8),
    ]
    for document in bad {
      func problem(raw: Bool) -> JSONSyntaxError? {
        document.withUnsafeBufferPointer { bytes in
          var scanner = JSONScanner(bytes: bytes)
          do throws(JSONSyntaxError) {
            if raw {
              try scanner.rawMembers { (_, scanner) throws(JSONSyntaxError) in
                if scanner.peek == UInt8(ascii: "\"") {
                  _ = try scanner.rawString()
                } else {
                  _ = try scanner.value()
                }
              }
            } else {
              try scanner.members { (_, scanner) throws(JSONSyntaxError) in _ = try scanner.value() }
            }
            return nil
          } catch {
            return error
          }
        }
      }
      #expect(problem(raw: true) != nil, "\(document)")
      #expect(problem(raw: true) == problem(raw: false), "\(document)")
    }
  }

  @Test func aProblemNamesItsByte() {
    #expect(throws: JSONSyntaxError(offset: 7, reason: "',' or '}' is missing")) {
      try JSONValue.parse(Data(#"{"a":1 "b":2}"#.utf8))
    }
    #expect(throws: JSONSyntaxError(offset: 8, reason: "data after the value")) {
      try JSONValue.parse(Data(#"{"a":1} x"#.utf8))
    }
    #expect(
      "\(JSONSyntaxError(offset: 3, reason: "a lone surrogate"))"
        == "invalid JSON at byte 3: a lone surrogate")
  }
}
