/// Text written into a CSV file that a person opens in a spreadsheet: every CSV the
/// product writes (the export, the experiment report) goes through `csvField`.

/// A field of the CSV: a text a spreadsheet would run as a formula is neutralized with
/// a leading `'` (OWASP's advice on CSV injection), then the field is quoted if RFC 4180
/// needs it.
public func csvField(_ text: String) -> String {
  let text = runsAsFormula(text) ? "'" + text : text
  guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
    return text
  }
  return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Whether a spreadsheet would read `text` as a formula: it starts with `=`, `+`, `-`,
/// `@`, a tab or a carriage return, and is not a plain number (a valence of `-0.5`
/// stays a number).
func runsAsFormula(_ text: String) -> Bool {
  guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else {
    return false
  }
  return !isPlainNumber(text)
}

/// `-12`, `+3.5`, `.5`, `1e-3`: digits with an optional sign, point and exponent.
func isPlainNumber(_ text: String) -> Bool {
  var scalars = Substring(text).unicodeScalars[...]
  func digits() -> Int {
    var count = 0
    while let scalar = scalars.first, ("0"..."9").contains(scalar) {
      scalars.removeFirst()
      count += 1
    }
    return count
  }
  if scalars.first == "+" || scalars.first == "-" { scalars.removeFirst() }
  var mantissa = digits()
  if scalars.first == "." {
    scalars.removeFirst()
    mantissa += digits()
  }
  guard mantissa > 0 else { return false }
  if scalars.first == "e" || scalars.first == "E" {
    scalars.removeFirst()
    if scalars.first == "+" || scalars.first == "-" { scalars.removeFirst() }
    guard digits() > 0 else { return false }
  }
  return scalars.isEmpty
}
