/// Where and why bytes are not JSON.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The byte offset the reader had reached.
  public var offset: Int
  public var reason: String

  public init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }

  public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A strict JSON reader over bytes (RFC 8259): no comments, numbers as JSON writes them
/// and finite, strings valid UTF-8 without raw control characters or lone surrogates,
/// containers nested at most `maxDepth` deep. It accepts what Foundation's `JSONDecoder`
/// accepts, one trailing comma in a container included, and reads it alike. The caller
/// reads what it needs: whole values, or an object's members in order as they come.
public struct JSONScanner {
  /// The deepest nesting read; deeper documents are refused, never a crash.
  public static let maxDepth = 512

  public let bytes: UnsafeBufferPointer<UInt8>
  /// The next byte to read.
  public var index = 0

  public init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  public func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, reason: reason) }

  /// The next byte, nil at the end.
  @inlinable public var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  @inlinable public var isAtEnd: Bool { index == bytes.count }

  @inlinable public mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  /// The value that starts here (after any whitespace). `depth` is how many containers
  /// enclose it.
  public mutating func value(depth: Int = 0) throws(JSONSyntaxError) -> JSONValue {
    skipWhitespace()
    guard let byte = peek else { throw error("a value is missing") }
    switch byte {
    case UInt8(ascii: "{"):
      var object: [String: JSONValue] = [:]
      try members(depth: depth) { (name, scanner) throws(JSONSyntaxError) in
        let member = try scanner.value(depth: depth + 1)
        // A name given twice keeps its first value, as Foundation's decoder does.
        if object[name] == nil { object[name] = member }
      }
      return .object(object)
    case UInt8(ascii: "["):
      var array: [JSONValue] = []
      try elements(depth: depth) { (scanner) throws(JSONSyntaxError) in
        array.append(try scanner.value(depth: depth + 1))
      }
      return .array(array)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw error("not a JSON value")
    }
  }

  /// The object that starts here: `member` is called with each name in order and must
  /// read that member's value (with `value(depth: depth + 1)` or the scanner's other
  /// readers). Names given twice are passed twice; the caller decides which counts.
  public mutating func members(
    depth: Int = 0, _ member: (String, inout JSONScanner) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) {
    try rawMembers(depth: depth) { (name, scanner) throws(JSONSyntaxError) in
      try member(scanner.text(of: name), &scanner)
    }
  }

  /// `members(depth:_:)` with each name as it stands in the bytes, read and checked but
  /// not made a `String`: a reader that looks for known names compares their bytes
  /// (`RawString.equals(_:)`) and makes text only of the names it keeps.
  public mutating func rawMembers(
    depth: Int = 0, _ member: (RawString, inout JSONScanner) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) {
    try open(UInt8(ascii: "{"), depth: depth)
    skipWhitespace()
    if peek == UInt8(ascii: "}") {
      index += 1
      return
    }
    while true {
      guard peek == UInt8(ascii: "\"") else { throw error("a member name is missing") }
      let name = try rawString()
      skipWhitespace()
      guard peek == UInt8(ascii: ":") else { throw error("':' is missing") }
      index += 1
      skipWhitespace()
      try member(name, &self)
      if try closes(UInt8(ascii: "}"), missing: "',' or '}' is missing", unended: "the object does not end") {
        return
      }
    }
  }

  /// The array that starts here: `element` is called for each element and must read it.
  public mutating func elements(
    depth: Int = 0, _ element: (inout JSONScanner) throws(JSONSyntaxError) -> Void
  ) throws(JSONSyntaxError) {
    try open(UInt8(ascii: "["), depth: depth)
    skipWhitespace()
    if peek == UInt8(ascii: "]") {
      index += 1
      return
    }
    while true {
      try element(&self)
      if try closes(UInt8(ascii: "]"), missing: "',' or ']' is missing", unended: "the array does not end") {
        return
      }
    }
  }

  private mutating func open(_ bracket: UInt8, depth: Int) throws(JSONSyntaxError) {
    guard peek == bracket else { throw error("not a JSON value") }
    guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
    index += 1
  }

  /// After a member or element: true when the container ends here, false after a comma
  /// that another member or element follows.
  private mutating func closes(_ close: UInt8, missing: String, unended: String) throws(JSONSyntaxError)
    -> Bool
  {
    skipWhitespace()
    guard let byte = peek else { throw error(unended) }
    switch byte {
    case UInt8(ascii: ","):
      index += 1
      skipWhitespace()
      // One trailing comma is let through, as Foundation's decoder does.
      if peek == close {
        index += 1
        return true
      }
      return false
    case close:
      index += 1
      return true
    default: throw error(missing)
    }
  }

  public mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count else { throw error("not a JSON value") }
    for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
      throw error("not a JSON value")
    }
    index += count
  }

  /// The string that starts here, at its opening quote, with its escapes read.
  public mutating func string() throws(JSONSyntaxError) -> String {
    guard peek == UInt8(ascii: "\"") else { throw error("not a JSON value") }
    index += 1
    let start = index
    var high: UInt8 = 0
    // The common case: no escapes, so the bytes are the string.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
        // ASCII is valid UTF-8: only other bytes need the (slower, generic) validation.
        let text: String
        if high < 0x80 {
          text = String(decoding: slice, as: UTF8.self)
        } else {
          guard let valid = String(validating: slice, as: UTF8.self) else { throw error("invalid UTF-8") }
          text = valid
        }
        index += 1
        return text
      }
      high |= byte
      if byte == UInt8(ascii: "\\") { break }
      guard byte >= 0x20 else { throw error("a control character in a string") }
      index += 1
    }
    var buffer = Array(bytes[start..<index])
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        guard let text = String(validating: buffer, as: UTF8.self) else { throw error("invalid UTF-8") }
        index += 1
        return text
      case UInt8(ascii: "\\"):
        index += 1
        guard index < bytes.count else { break }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
              bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("a lone surrogate") }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00..<0xE000).contains(scalar) {
            throw error("a lone surrogate")
          }
          // Every value left is a scalar: surrogates were handled above.
          guard let unicode = Unicode.Scalar(scalar) else { throw error("a lone surrogate") }
          buffer.append(contentsOf: unicode.utf8)
        default: throw error("an unknown escape")
        }
      default:
        guard byte >= 0x20 else { throw error("a control character in a string") }
        buffer.append(byte)
        index += 1
      }
    }
    throw error("the string does not end")
  }

  /// Where a string stands in the bytes, between its quotes, already read and checked.
  public struct RawString: Sendable {
    /// The offsets of its first byte and of its closing quote.
    public var start: Int
    public var end: Int
    /// True when the bytes are the text: ASCII without escapes.
    public var isPlain: Bool

    /// Whether the string is `text` (ASCII), compared byte by byte when it is plain.
    @inlinable public func equals(_ text: StaticString, in scanner: JSONScanner) -> Bool {
      guard isPlain else { return scanner.text(of: self) == String(describing: text) }
      let count = text.utf8CodeUnitCount
      guard end - start == count else { return false }
      for offset in 0..<count where scanner.bytes[start + offset] != text.utf8Start[offset] { return false }
      return true
    }
  }

  /// The string that starts here, at its opening quote, read and checked as `string()`
  /// reads it, but left in the bytes: no `String` is made. Plain strings (ASCII without
  /// escapes, the usual case) are read here; any other through `string()`.
  public mutating func rawString() throws(JSONSyntaxError) -> RawString {
    guard peek == UInt8(ascii: "\"") else { throw error("not a JSON value") }
    let quote = index
    var cursor = index + 1
    while cursor < bytes.count {
      let byte = bytes[cursor]
      if byte == UInt8(ascii: "\"") {
        index = cursor + 1
        return RawString(start: quote + 1, end: cursor, isPlain: true)
      }
      guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { break }
      cursor += 1
    }
    // Escapes, other UTF-8, a control character or no end: the full reader checks (and
    // names the problem at the same offset it always did).
    _ = try string()
    return RawString(start: quote + 1, end: index - 1, isPlain: false)
  }

  /// The text of a string `rawString()` read.
  public func text(of raw: RawString) -> String {
    let slice = UnsafeBufferPointer(rebasing: bytes[raw.start..<raw.end])
    if raw.isPlain { return String(decoding: slice, as: UTF8.self) }
    var again = self
    again.index = raw.start - 1
    // Read once already without a problem, so it reads again without one.
    return (try? again.string()) ?? String(decoding: slice, as: UTF8.self)
  }

  private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("a short \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("a bad \\u escape")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  /// The number that starts here, as JSON spells it:
  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, finite, and not so small
  /// that a Double holds it as 0 (Foundation's decoder refuses those too).
  public mutating func number() throws(JSONSyntaxError) -> Double {
    let start = index
    func digits() -> Int {
      let first = index
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
        index += 1
      }
      return index - first
    }
    if peek == UInt8(ascii: "-") { index += 1 }
    guard let first = peek else { throw error("a number without digits") }
    if first == UInt8(ascii: "0") {
      index += 1
    } else if digits() == 0 {
      throw error("a number without digits")
    }
    if peek == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { throw error("a fraction without digits") }
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      index += 1
      if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
      guard digits() > 0 else { throw error("an exponent without digits") }
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    guard let value = Double(text), value.isFinite else { throw error("a number a Double cannot hold") }
    if value == 0,
      text.utf8.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") })
        .contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) })
    {
      throw error("a number a Double cannot hold")
    }
    return value
  }
}
