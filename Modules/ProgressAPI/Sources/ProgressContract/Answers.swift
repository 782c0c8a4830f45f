import Foundation

/// `{"data": value}`: how every successful answer wraps its value.
public struct DataEnvelope<Value: Decodable>: Decodable {
  public var data: Value

  enum CodingKeys: String, CodingKey {
    case data
  }
}

/// A batch answer, `{"data":{"results":[{"status","data"?,"error"?}]}}`: one result per
/// item, in order.
public struct BatchAnswer: Decodable, Sendable {
  public struct Result: Decodable, Sendable {
    public var status: Int
    /// The row, for a progress `POST` or `PUT` that succeeded.
    public var data: ProgressRecord?
    /// The row, for a generic resource's `POST` or `PUT` that succeeded (`{id, body}`,
    /// which no progress row is).
    public var resource: ResourceRecord?
    /// The refusal's message, when the item was refused with the envelope.
    public var refusal: String?

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: BatchResultField.self)
      status = try container.decode(Int.self, forKey: .status)
      do {
        data = try container.decodeIfPresent(ProgressRecord.self, forKey: .data)
      } catch {
        // Not a progress row: a resource's, or the error of a row that is neither.
        guard let row = try? container.decode(ResourceRecord.self, forKey: .data) else { throw error }
        resource = row
      }
      refusal = (try? container.decodeIfPresent(ErrorEnvelope.Detail.self, forKey: .error))?.message
    }
  }

  public var results: [Result]

  enum CodingKeys: String, CodingKey {
    case data
  }

  enum DataKeys: String, CodingKey {
    case results
  }

  public init(from decoder: any Decoder) throws {
    let data = try decoder.container(keyedBy: CodingKeys.self).nestedContainer(
      keyedBy: DataKeys.self, forKey: .data)
    results = try data.decode([Result].self, forKey: .results)
  }
}

extension BatchAnswer {
  /// The answer's bytes from each item's status and answer body (`{"data": …}` or
  /// `{"error": …}`, empty for 204): the body's members are copied as they are, not read
  /// and written again.
  public static func encode(_ answers: [(status: Int, body: Data)]) -> Data {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(answers.reduce(32) { $0 + $1.body.count + 16 })
    bytes += #"{"data":{"results":["#.utf8
    for (index, answer) in answers.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      bytes += #"{"status":"#.utf8
      bytes += String(answer.status).utf8
      let members = Self.members(of: answer.body)
      if !members.isEmpty {
        bytes.append(UInt8(ascii: ","))
        bytes += members
      }
      bytes.append(UInt8(ascii: "}"))
    }
    bytes += "]}}".utf8
    return Data(bytes)
  }

  /// What lies between the braces of a body that is one JSON object (as every body
  /// the server writes is), trimmed; nothing for an empty body.
  static func members(of body: Data) -> ArraySlice<UInt8> {
    let bytes = ArraySlice(body)
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }),
      let last = bytes.lastIndex(where: { !isSpace($0) }), first < last,
      bytes[first] == UInt8(ascii: "{"), bytes[last] == UInt8(ascii: "}")
    else { return [] }
    let inner = bytes[(first + 1)..<last]
    guard let start = inner.firstIndex(where: { !isSpace($0) }),
      let end = inner.lastIndex(where: { !isSpace($0) })
    else { return [] }
    return inner[start...end]
  }
}
