import CLibFuzzer

/// A custom mutation for libFuzzer: now and then a scalar of the input (the text after
/// `: `, `- `, `[`, `{` or `, `) becomes an extreme value: a huge or non-finite number, an
/// odd date or duration. Byte-level mutations seldom write `1e300` exactly where a script
/// takes a number; this does. Otherwise libFuzzer mutates as usual.
public enum ValueMutator {
  static let values: [[UInt8]] = [
    "1e300", "-1", "9223372036854775807", "9223372036854775808", "1e19", "1e15", "nan", ".inf", "-0",
    "4.9e-324", "0001-01-01T00:00", "2026-02-30T08:00", "-1-01-01T00:00", "9999-12-31T23:59:59",
    "2026-03-02T08:00+02:00", "99999999999-01-01T00:00", "infd", "1e300d", "1e15d", "3e11d", "infs", "1e300s",
    "-5m", "1e9h", "\"a\\nb\"", "\"\\u2028\"", "&a x", "*a", "${X}",
  ].map { Array($0.utf8) }

  /// libFuzzer's `LLVMFuzzerCustomMutator`: mutates `data` in place, returns the new size.
  public static func mutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32)
    -> Int
  {
    var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    guard next(4) == 0 else { return LLVMFuzzerMutate(data, size, maxSize) }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var starts: [Int] = []
    for index in bytes.indices {
      switch bytes[index] {
      case UInt8(ascii: "["), UInt8(ascii: "{"): starts.append(index + 1)
      case UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: ","):
        if index + 1 < size, bytes[index + 1] == UInt8(ascii: " ") { starts.append(index + 2) }
      default: break
      }
    }
    guard !starts.isEmpty else { return LLVMFuzzerMutate(data, size, maxSize) }
    let start = starts[next(starts.count)]
    var end = start
    let stops: Set<UInt8> = [
      UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "\n"), UInt8(ascii: ":"),
    ]
    while end < size, !stops.contains(bytes[end]) { end += 1 }
    let value = values[next(values.count)]
    let newSize = size - (end - start) + value.count
    guard newSize <= maxSize else { return LLVMFuzzerMutate(data, size, maxSize) }
    let tail = Array(bytes[end..<size])
    for (offset, byte) in (value + tail).enumerated() { data[start + offset] = byte }
    return newSize
  }
}
