import Foundation

/// A JSON value: a request body the backend reads, a GrowthBook attribute, condition or
/// variation value. Read strictly with `parse(_:)` (`true` is not a number and `"3"` is
/// not a number); `Codable` for documents that go through Foundation's coders.
public enum JSONValue: Sendable, Equatable, Codable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else if let object = try? container.decode([String: JSONValue].self) {
      self = .object(object)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "expected a JSON value (null, bool, number, string, array or object)"
      )
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// Reads one JSON document: nothing but whitespace around the value (a leading byte
  /// order mark is let through, as Foundation's decoder does); see `JSONScanner` for
  /// what is refused.
  public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
    let result: Result<JSONValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
      var scanner = JSONScanner(bytes: raw.bindMemory(to: UInt8.self))
      do throws(JSONSyntaxError) {
        if scanner.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.index = 3 }
        let value = try scanner.value()
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.error("data after the value") }
        return .success(value)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  /// The member `key` of an object; nil for a missing member or a non-object.
  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }
}

extension JSONValue: ExpressibleByNilLiteral {
  public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
  public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
  public init(floatLiteral value: Double) { self = .number(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
  public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
