import FlowKitTesting
import Foundation

/// A fuzz run gives the same mutants on every machine and toolchain: SplitMix64's
/// sequence depends on the seed alone, and `Int.random(in:using:)` is not guaranteed to,
/// so `below(_:)` is our own.
extension SplitMix64 {
  /// A number in 0..<bound (bound > 0), by multiply-high (bias below 2⁻³² for our bounds).
  mutating func below(_ bound: Int) -> Int {
    precondition(bound > 0)
    return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
  }

  mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

  mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// Which loader a mutant is meant for: the operators insert that file kind's keys.
enum FuzzTarget: String, Sendable {
  case script
  case experiment
}

/// One mutated input and how it was made, for reproducing a finding.
struct Mutant: Sendable {
  var bytes: [UInt8]
  var operations: [String]
}

/// Mutates YAML files the way an attacker or an unlucky user would: lines deleted,
/// duplicated, swapped or re-indented; scalars replaced by extreme numbers, odd dates and
/// durations, unknown ids, huge strings, deep nesting, anchors and aliases, escapes that
/// make newlines; control characters, U+2028, random bytes, invalid UTF-8; truncation.
/// Works on bytes, so invalid UTF-8 survives later operations.
struct Mutator {
  var rng: SplitMix64
  /// Lines of every seed, for splicing one file's lines into another.
  let donorLines: [[UInt8]]

  init(seed: UInt64, donors: [[UInt8]]) {
    rng = SplitMix64(seed: seed)
    donorLines = donors.flatMap { Self.lines($0) }.filter { !$0.isEmpty }
  }

  // MARK: values

  static let numbers = [
    "1e300", "-1e300", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551616", "1e15", "1e19", "4.9e-324", "1e-300", "nan", ".nan", "NaN", ".inf", "-.inf",
    "inf",
    "-inf", "-0", "0", "0.0", "1", "2", "0.5", "1.0000000001", "3.999999", "11", "100", "0x10", "0o17",
    "1_000",
    "+1", "1e", "--1", "1..2", "０",
  ]
  static let dates = [
    "2026-02-30T08:00", "0001-01-01T00:00", "-1-01-01T00:00", "2026-1-5T09:00", "2026-03-02T08:00+02:00",
    "2026-03-02T08:00Z", "9999-12-31T23:59:59", "99999999999-01-01T00:00", "2026-03-02T24:00",
    "2026-03-02T08:60", "2026-03-02T08:00:60", "2026-13-01T00:00", "2026-00-10T00:00", "2026-03-00T08:00",
    "0000-01-01T00:00", "2026-03-29T02:30", "2026-10-25T02:30", "2026-03-02", "2026-03-02T", "T08:00",
    "2026--03-02T08:00", "2026-03-02T08:00:00.5", "1969-12-31T23:59:59", "1582-10-10T12:00",
    "9223372036854775807-01-01T00:00", "2026-03-02T-1:00",
  ]
  static let durations = [
    "infd", "1e300d", "1e15d", "-5m", "nand", "1e300s", "1e300h", "1e300m", "1e15s", "1e19d",
    "9223372036854775807d",
    "0d", "0s", "1.5d", "d", "1", "1x", "-0d", "+3d", "1e-300s", "106751991167300d", "2147483648d",
    "365000000d",
    "4e9d", "1e9h", "infs", "infh", "3e11d", "2e11d",
  ]
  static let texts = [
    "", "~", "null", "true", "false", "yes", "no", "on", "\"\"", "''", "[]", "{}", "[a, b]", "{a: 1}", "-",
    "?",
    ":", "#", "@x", "`x`", "|", ">", "'unterminated", "\"unterminated", "\"a\\nb\"", "\"\\u2028\"", "\"\\0\"",
    "\"\\x85\"", "\"a\\rb\"", "\"\\e[31m\"", "\"\\t\"", "'multi\n  line'", "\"\\uD800\"", "!!binary aGk=",
    "!!int 3", "!!float .inf", "!!str 1e300", "!custom x", "!!null ''", "!!timestamp 2026-01-01", "${NOPE}",
    "${", "${SCORE", "$${SKILL}}", "${SKILL}${SKILL}", "unknown.id", "onboarding", "checkin", "checkin.pet",
    "mood.log", "continue", "Europe/Nowhere", "UTC", "+14:00", "Etc/GMT+14", "../../etc/passwd",
    "/dev/zero", "/dev/null", ".", "common", "common/../common/log-mood.yaml", "Ünïcødé", "😀", "\u{FEFF}x",
    "\u{200B}", "a\u{2028}b", "a\u{2029}b", "a\u{85}b",
  ]
  /// GrowthBook conditions, valid and not.
  static let conditions = [
    "{id: {$regex: \"(\"}}", "{id: {$regex: \"(a+)+$\"}}", "{id: {$regex: \"\"}}", "{$or: []}",
    "{$and: [{}]}",
    "{$nor: [{id: x}]}", "{skill: {$in: 1e300}}", "{skill: {$in: []}}",
    "{daysSinceFirstLaunch: {$gte: 1e300}}",
    "{daysSinceFirstLaunch: {$gte: -1e300}}", "{$not: {$not: {}}}", "{id: {$vgt: \"1.2.3\"}}",
    "{id: {$vlt: \"99999999999999999999.1\"}}", "{id: {$size: -1}}", "{id: {$size: 1e300}}",
    "{id: {$type: nope}}", "{x: {$elemMatch: {$gt: 1}}}", "{$foo: 1}", "{id: {$exists: 1e300}}",
    "{id: {$all: [[[[]]]]}}", "{id: {$eq: null}}", "{id: {$gt: {}}}", "{id: [1, {a: [2]}]}",
    "{\"id.a.b.c.d\": 1}", "{id: {$inGroup: g}}", "{id: {$regex: \"\\\\\"}}", "[]", "null", "1e300",
    "{id: {$regex: \"[\"}}", "{skill: {$not: {$regex: \"a{99999}\"}}}",
  ]

  mutating func value() -> String {
    switch rng.below(10) {
    case 0, 1, 2: return rng.pick(Self.numbers)
    case 3, 4: return rng.pick(Self.dates)
    case 5, 6: return rng.pick(Self.durations)
    case 7: return identifier()
    default: return rng.pick(Self.texts)
    }
  }

  /// An id nobody registered, or a known one with a typo.
  mutating func identifier() -> String {
    let known = [
      "onboarding", "checkin", "journal", "mood.log", "continue", "score", "emotion", "checkin.pet", "launch",
      "tap", "checkin-length", "mini", "full", "standard", "brief", "skill", "finale", "mood.count",
    ]
    var chars = Array(rng.pick(known))
    switch rng.below(4) {
    case 0: chars.remove(at: rng.below(chars.count))
    case 1: chars.insert(rng.pick(Array("abcxyz.-_")), at: rng.below(chars.count + 1))
    case 2: chars[rng.below(chars.count)] = rng.pick(Array("qwzè.-"))
    default: return "x" + String(rng.next() % 100_000)
    }
    return String(chars)
  }

  // MARK: mutating

  /// 1 to 3 operations on `input`.
  mutating func mutate(_ input: [UInt8], for target: FuzzTarget) -> Mutant {
    var mutant = Mutant(bytes: input, operations: [])
    for _ in 0...rng.below(3) {
      mutant.operations.append(apply(to: &mutant.bytes, for: target))
    }
    return mutant
  }

  private mutating func apply(to bytes: inout [UInt8], for target: FuzzTarget) -> String {
    var lines = Self.lines(bytes)
    defer { bytes = Self.join(lines) }
    let index = rng.below(max(lines.count, 1))
    if lines.isEmpty { lines = [[]] }
    switch rng.below(24) {
    case 0:
      lines.remove(at: index)
      if lines.isEmpty { lines = [[]] }
      return "delete line \(index + 1)"
    case 1:
      lines.insert(lines[index], at: index)
      return "duplicate line \(index + 1)"
    case 2:
      let other = rng.below(lines.count)
      lines.swapAt(index, other)
      return "swap lines \(index + 1) and \(other + 1)"
    case 3:
      return reindent(&lines, index)
    case 4, 5, 6:
      let value = value()
      return replaceToken(&lines, with: value)
    case 7, 8, 9:
      return insertTemplate(&lines, for: target)
    case 10:
      return anchorAndAlias(&lines)
    case 11:
      return duplicateKey(&lines)
    case 12:
      let control = rng.pick([
        "\u{0}", "\u{1}", "\u{7}", "\u{8}", "\u{B}", "\u{C}", "\u{1B}", "\t", "\r", "\r\n", "\u{7F}",
        "\u{85}",
        "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFE}", "\u{202E}", "\u{200B}",
      ])
      bytes = Self.join(lines)
      let offset = rng.below(bytes.count + 1)
      bytes.insert(contentsOf: Array(control.utf8), at: offset)
      lines = Self.lines(bytes)
      return
        "insert U+\(control.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " U+")) at byte \(offset)"
    case 13:
      // Long enough to matter, short enough for a debug build (see Tools/Fuzz for longer ones).
      let length = rng.pick([1_000, 5_000, 20_000])
      let text =
        rng.chance(50)
        ? String(repeating: "x", count: length) : "\"" + String(repeating: "é", count: length) + "\""
      return replaceToken(&lines, with: text, note: "a \(length)-character string")
    case 14:
      let depth = rng.pick([16, 100, 500, 1_000])
      let nested =
        rng.chance(50)
        ? String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        : String(repeating: "{a: ", count: depth) + "1" + String(repeating: "}", count: depth)
      return replaceToken(&lines, with: nested, note: "nesting \(depth) deep")
    case 15:
      let id = identifier()
      return replaceToken(&lines, with: id)
    case 16:
      bytes = Self.join(lines)
      let cut = rng.below(bytes.count + 1)
      bytes.removeSubrange(cut...)
      lines = Self.lines(bytes)
      return "truncate at byte \(cut)"
    case 17:
      bytes = Self.join(lines)
      let count = 1 + rng.below(8)
      for _ in 0..<count {
        let byte = UInt8(truncatingIfNeeded: rng.next())
        if bytes.isEmpty || rng.chance(50) {
          bytes.insert(byte, at: rng.below(bytes.count + 1))
        } else {
          bytes[rng.below(bytes.count)] = byte
        }
      }
      lines = Self.lines(bytes)
      return "\(count) random bytes"
    case 18:
      let invalid: [[UInt8]] = [
        [0xFF], [0xFE, 0xFF], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80],
        [0xE2, 0x80],
      ]
      bytes = Self.join(lines)
      let sequence = rng.pick(invalid)
      let offset = rng.below(bytes.count + 1)
      bytes.insert(contentsOf: sequence, at: offset)
      lines = Self.lines(bytes)
      return "invalid UTF-8 \(sequence.map { String($0, radix: 16) }) at byte \(offset)"
    case 19:
      guard !donorLines.isEmpty else { return "no splice" }
      let donor = rng.pick(donorLines)
      lines.insert(donor, at: rng.below(lines.count + 1))
      return "splice '\(Self.short(String(decoding: donor, as: UTF8.self)))'"
    case 20:
      let structure = rng.pick([
        "---", "...", "%YAML 1.2", "%TAG ! tag:x,2000:", "? [a, b]\n: c", "<<: {a: 1}",
        "steps: |\n  - launch",
        "name: >\n  folded\n  text", "# comment", "\t- launch", "&x", "*x", "!!set {a, b}", "[", "{", "}",
        "]",
        "- - - -", ": :", "? ", "key: value: other",
      ])
      lines.insert(Array(structure.utf8), at: rng.below(lines.count + 1))
      return "insert '\(structure)'"
    case 21:
      return replaceToken(
        &lines, with: rng.pick(["${X}", "${", "${SKILL}", "${SCORE}", "${}", "$${A}}", "${a${b}}"]))
    case 22:
      bytes = Self.join(lines)
      let start = rng.below(bytes.count + 1)
      let end = min(bytes.count, start + 1 + rng.below(64))
      bytes.removeSubrange(start..<end)
      lines = Self.lines(bytes)
      return "delete bytes \(start)..<\(end)"
    default:
      let value = value()
      return replaceToken(&lines, with: value)
    }
  }

  private mutating func reindent(_ lines: inout [[UInt8]], _ index: Int) -> String {
    var line = lines[index]
    let leading = line.prefix { $0 == UInt8(ascii: " ") }.count
    switch rng.below(7) {
    case 0, 1:
      let added = 1 + rng.below(6)
      line.insert(contentsOf: Array(repeating: UInt8(ascii: " "), count: added), at: 0)
      lines[index] = line
      return "indent line \(index + 1) by \(added)"
    case 2, 3:
      let removed = min(leading, 1 + rng.below(4))
      line.removeFirst(removed)
      lines[index] = line
      return "dedent line \(index + 1) by \(removed)"
    case 4, 5:
      line.insert(UInt8(ascii: "\t"), at: 0)
      lines[index] = line
      return "tab before line \(index + 1)"
    default:
      lines = lines.map { line in
        let indent = line.prefix { $0 == UInt8(ascii: " ") }.count
        return Array(repeating: UInt8(ascii: "\t"), count: indent / 2) + line.dropFirst(indent)
      }
      return "tabs for indentation"
    }
  }

  /// Replaces a scalar: the text after `: `, `- `, `[`, `{` or `, ` up to the next `,`, `}`,
  /// `]` or the end of the line (so block and flow collections alike).
  private mutating func replaceToken(_ lines: inout [[UInt8]], with value: String, note: String? = nil)
    -> String
  {
    var candidates: [(line: Int, start: Int)] = []
    for (number, line) in lines.enumerated() {
      var column = 0
      while column < line.count {
        let byte = line[column]
        if (byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ","))
          && column + 1 < line.count && line[column + 1] == UInt8(ascii: " ")
        {
          candidates.append((number, column + 2))
        } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
          candidates.append((number, column + 1))
        }
        column += 1
      }
    }
    guard !candidates.isEmpty else {
      lines.append(Array("key: \(value)".utf8))
      return "append key: \(note ?? value)"
    }
    let (number, start) = rng.pick(candidates)
    var line = lines[number]
    let stops: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")]
    var end = start
    // A key in a flow mapping ends at its colon.
    while end < line.count && !stops.contains(line[end])
      && !(line[end] == UInt8(ascii: ":") && end + 1 < line.count && line[end + 1] == UInt8(ascii: " "))
    {
      end += 1
    }
    if end == start { end = min(line.count, start) }
    let old = Self.short(String(decoding: line[start..<end], as: UTF8.self))
    line.replaceSubrange(start..<end, with: Array(value.utf8))
    lines[number] = line
    return "line \(number + 1): '\(old)' → \(note ?? "'\(Self.short(value))'")"
  }

  private mutating func insertTemplate(_ lines: inout [[UInt8]], for target: FuzzTarget) -> String {
    let v1 = value()
    let v2 = value()
    switch target {
    case .script:
      if rng.chance(25) {
        let key = rng.pick(["start", "timezone", "user", "name", "tags", "env", "experiments", "steps"])
        let text: String
        switch key {
        case "env": text = "env: {SKILL: \(v1), SCORE: \(v2)}"
        case "experiments":
          text = "experiments: {\(rng.pick(["checkin-length", "onboarding-length", v2])): \(v1)}"
        case "start": text = "start: \(rng.chance(70) ? rng.pick(Self.dates) : v1)"
        default: text = "\(key): \(v1)"
        }
        lines.insert(Array(text.utf8), at: rng.chance(50) ? 0 : lines.count)
        return "top-level '\(text)'"
      }
      let step = rng.pick([
        "repeat: {times: \(rng.chance(60) ? rng.pick(Self.numbers) : v1), steps: [launch]}",
        "repeat: {times: \(rng.pick(Self.numbers)), steps: []}",
        "repeat: {times: \(rng.pick(Self.numbers)), steps: [{advance: \(rng.pick(Self.durations))}]}",
        "advance: \(rng.chance(70) ? rng.pick(Self.durations) : v1)",
        "set: {score: \(v1)}",
        "set: {\(v2): \(v1)}",
        "enter: {response: \(v1)}",
        "enter: {date: \(rng.chance(50) ? rng.pick(Self.dates) : v1)}",
        "select: {emotion: \(v1)}",
        "select: {labels: [\(v1), \(v2)]}",
        "toggle: {\(v1): \(v2)}",
        "tap: \(v1)",
        "start: \(v1)",
        "start: {flow: \(rng.pick(["checkin", "onboarding", "mood.log", "journal", v2])), variant: \(v1)}",
        "start: {flow: checkin, trigger: \(v1)}",
        "expect: {data: {\(rng.pick(["mood.count", "mood.streak", "checkin.count", "mood.average.7d", v2])): \(v1)}}",
        "expect: {data: {mood.latest.score: {min: \(v1), max: \(v2)}}}",
        "expect: {value: {score: \(v1)}}",
        "expect: {\(rng.pick(["screen", "alert", "idle", "flow", "outcome", "text", "enabled"])): \(v1)}",
        "network: \(v1)",
        "relaunch: {clearState: \(v1)}",
        "relaunch",
        "sync",
        "launch",
        "back",
        "close",
        "run: \(v1)",
        "run: {file: common/log-mood.yaml, env: {SCORE: \(v1), DAY: \(rng.pick(Self.dates + [v2]))}}",
        "run: {file: common/complete-onboarding.yaml, env: {SKILL: \(v1)}}",
        "if: {screen: \(v1)}\n    then: [launch]\n    else: [\(v2)]",
        "label: \(v1)\n    optional: \(v2)\n    tap: continue",
        "\(identifier()): \(v1)",
      ])
      let at = stepLine(lines)
      let indent = String(repeating: " ", count: at.indent)
      let text = indent + "- " + step
      lines.insert(Array(text.utf8), at: at.line)
      return "step '\(step)' at line \(at.line + 1)"
    case .experiment:
      if rng.chance(20) {
        let variant = rng.pick([
          "variants:\n  checkin:\n    \(v1): {steps: [\(v2), acting]}",
          "variants:\n  \(rng.pick(["checkin", "onboarding", v2])):\n    x: {steps: [sensing, \(v1)]}",
          "variants: {onboarding: {brief2: {steps: [\(v1)]}}}",
          "experiments:\n  - key: \(v1)\n    flow: \(rng.pick(["checkin", "onboarding", v2]))\n    variations: [full, quick]",
        ])
        lines.insert(
          contentsOf: variant.split(separator: "\n").map { Array($0.utf8) },
          at: rng.chance(50) ? 0 : lines.count)
        return "top-level '\(variant)'"
      }
      let field = rng.pick([
        "weights: [\(v1), \(v2), \(rng.pick(Self.numbers))]",
        "weights: [\(rng.pick(Self.numbers)), \(rng.pick(Self.numbers))]",
        "weights: \(v1)",
        "coverage: \(rng.chance(70) ? rng.pick(Self.numbers) : v1)",
        "hashVersion: \(rng.chance(70) ? rng.pick(Self.numbers) : v1)",
        "namespace: [\(rng.chance(50) ? "ns" : v2), \(rng.pick(Self.numbers)), \(rng.pick(Self.numbers))]",
        "namespace: \(v1)",
        "condition: \(rng.pick(Self.conditions))",
        "condition: {\(rng.pick(["id", "skill", "daysSinceFirstLaunch", v2])): \(v1)}",
        "seed: \(v1)",
        "hashAttribute: \(rng.pick(["id", "skill", "daysSinceFirstLaunch", v1]))",
        "variations: [\(v1), \(v2)]",
        "key: \(v1)",
        "flow: \(v1)",
        "\(identifier()): \(v1)",
      ])
      let at = fieldLine(lines)
      let text = String(repeating: " ", count: at.indent) + field
      lines.insert(Array(text.utf8), at: at.line)
      return "field '\(field)' at line \(at.line + 1)"
    }
  }

  /// Where a new step goes: before or after a random `- ` item line, at its indentation.
  private mutating func stepLine(_ lines: [[UInt8]]) -> (line: Int, indent: Int) {
    let items = lines.enumerated().compactMap { number, line -> (Int, Int)? in
      let indent = line.prefix { $0 == UInt8(ascii: " ") }.count
      guard indent < line.count - 1, line[indent] == UInt8(ascii: "-"), line[indent + 1] == UInt8(ascii: " ")
      else { return nil }
      return (number, indent)
    }
    guard !items.isEmpty else { return (lines.count, 2) }
    let (line, indent) = rng.pick(items)
    return (rng.chance(50) ? line : line + 1, indent)
  }

  /// Where a new experiment field goes: beside an existing field of an experiment.
  private mutating func fieldLine(_ lines: [[UInt8]]) -> (line: Int, indent: Int) {
    let fields = ["key:", "flow:", "variations:", "weights:", "coverage:"]
    let items = lines.enumerated().compactMap { number, line -> (Int, Int)? in
      let text = String(decoding: line, as: UTF8.self)
      let trimmed = text.drop { $0 == " " || $0 == "-" }
      guard fields.contains(where: { trimmed.hasPrefix($0) }) else { return nil }
      return (number, text.count - trimmed.count)
    }
    guard !items.isEmpty else { return (lines.count, 4) }
    let (line, indent) = rng.pick(items)
    return (line + 1, indent)
  }

  private mutating func anchorAndAlias(_ lines: inout [[UInt8]]) -> String {
    switch rng.below(4) {
    case 0:
      let first = replaceToken(
        &lines, with: "&a " + rng.pick(["1", "[launch]", "{times: 2, steps: [launch]}", "x"]))
      let second = replaceToken(&lines, with: "*a")
      return "anchor (\(first)), alias (\(second))"
    case 1:
      return replaceToken(&lines, with: "*undefined")
    case 2:
      lines.insert(Array("  - &a launch".utf8), at: rng.below(lines.count + 1))
      lines.insert(Array("  - *a".utf8), at: rng.below(lines.count + 1))
      return "anchored step and its alias"
    default:
      // The billion laughs, kept small: aliases of aliases.
      let laughs = [
        "x: &a [lol, lol]", "y: &b [*a, *a, *a, *a]", "z: &c [*b, *b, *b, *b]", "w: [*c, *c, *c]",
      ]
      lines.insert(contentsOf: laughs.map { Array($0.utf8) }, at: rng.chance(50) ? 0 : lines.count)
      return "aliases of aliases"
    }
  }

  private mutating func duplicateKey(_ lines: inout [[UInt8]]) -> String {
    // A block key repeated with another value, or a flow mapping's first key repeated.
    let keyed = lines.indices.filter { lines[$0].contains(UInt8(ascii: ":")) }
    guard !keyed.isEmpty else { return "no key to duplicate" }
    let number = rng.pick(keyed)
    let text = String(decoding: lines[number], as: UTF8.self)
    if let brace = text.firstIndex(of: "{"), let colon = text[brace...].firstIndex(of: ":") {
      let key = text[text.index(after: brace)..<colon]
      let duplicated = text[...brace] + "\(key): \(value()), " + text[text.index(after: brace)...]
      lines[number] = Array(duplicated.utf8)
      return "line \(number + 1): flow key '\(key)' twice"
    }
    let colon = text.firstIndex(of: ":")!
    let duplicated = text[..<colon] + ": " + value()
    lines.insert(Array(duplicated.utf8), at: number + 1)
    return "line \(number + 1): key '\(text[..<colon].trimmingCharacters(in: .whitespaces))' twice"
  }

  /// Text for an operation's description, at most 60 characters.
  static func short(_ text: String) -> String {
    text.count <= 60 ? text : text.prefix(57) + "…"
  }

  static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
  }

  static func join(_ lines: [[UInt8]]) -> [UInt8] {
    Array(lines.joined(separator: [UInt8(ascii: "\n")]))
  }
}
