import StrictJSON

extension JSONValue {
  /// Appends bytes that are equal for equal values, whatever the key order or spacing.
  func canonical(into bytes: inout [UInt8]) {
    func append(_ text: String) {
      let utf8 = Array(text.utf8)
      withUnsafeBytes(of: UInt64(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
      bytes.append(contentsOf: utf8)
    }
    switch self {
    case .null: bytes.append(0x6E)
    case .bool(let value): bytes.append(value ? 0x74 : 0x66)
    case .number(let value):
      bytes.append(0x64)
      // 0 and -0 are the same number.
      withUnsafeBytes(of: (value == 0 ? 0 : value).bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
    case .string(let value):
      bytes.append(0x73)
      append(value)
    case .array(let values):
      bytes.append(0x5B)
      withUnsafeBytes(of: UInt64(values.count).bigEndian) { bytes.append(contentsOf: $0) }
      for value in values { value.canonical(into: &bytes) }
    case .object(let members):
      bytes.append(0x7B)
      withUnsafeBytes(of: UInt64(members.count).bigEndian) { bytes.append(contentsOf: $0) }
      for name in members.keys.sorted() {
        append(name)
        members[name]!.canonical(into: &bytes)
      }
    }
  }
}
