/// `text` as it may be written to a terminal or a CI log when it comes from a file someone
/// else wrote (a script, an events file, `-e`): the scalars a terminal acts on instead of
/// showing are written as `\u{1B}` (uppercase hex, as Swift writes it), and a text longer
/// than `limit` characters is clipped to `limit` characters, the last of them "…".
///
/// Escaped: C0 controls (U+0000–U+001F, newline and tab included, so one value stays one
/// line), DEL (U+007F), C1 controls (U+0080–U+009F, CSI and OSC among them) and the
/// bidirectional marks and overrides (U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), which
/// reorder what follows them on screen. `limit` counts the characters of `text` (an escaped
/// scalar is one), so clipping is by what a reader sees, never inside a character. The
/// work is linear in what is kept: a clipped text is read no further than its limit.
public func terminalSafe(_ text: String, limit: Int? = nil) -> String {
  var kept = text[...]
  var clipped = false
  if let limit = limit.map({ max(1, $0) }), text.utf8.count > limit,
    let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex), end < text.endIndex
  {
    kept = text[..<text.index(before: end)]
    clipped = true
  }
  // Most names are short and plain: returned as they are, without a copy.
  if !clipped, !text.unicodeScalars.contains(where: terminalActsOn) { return text }
  // Built as UTF-8 bytes: appending to a String.UnicodeScalarView one scalar at a time
  // was quadratic.
  var bytes: [UInt8] = []
  bytes.reserveCapacity(kept.utf8.count + 3)
  for scalar in kept.unicodeScalars {
    guard terminalActsOn(scalar) else {
      bytes.append(contentsOf: scalar.utf8)
      continue
    }
    bytes.append(contentsOf: "\\u{".utf8)
    let digits = (32 - scalar.value.leadingZeroBitCount + 3) / 4
    for shift in stride(from: (max(digits, 1) - 1) * 4, through: 0, by: -4) {
      bytes.append(hexDigits[Int(scalar.value >> UInt32(shift) & 0xF)])
    }
    bytes.append(UInt8(ascii: "}"))
  }
  if clipped { bytes.append(contentsOf: "…".utf8) }
  return String(decoding: bytes, as: UTF8.self)
}

private let hexDigits = Array("0123456789ABCDEF".utf8)

private func terminalActsOn(_ scalar: Unicode.Scalar) -> Bool {
  switch scalar.value {
  case 0x00...0x1F, 0x7F...0x9F, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069: true
  default: false
  }
}
