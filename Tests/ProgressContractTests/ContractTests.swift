import Foundation
import JournalCatalog
import ProgressContract
import Testing
import Yams

/// The contract's Swift types against `openapi.yaml`: every path, member, parameter and
/// header the server and the client spell (through these types) is the document's.
@Suite struct ContractTests {
  static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Modules/ProgressAPI/openapi.yaml").standardized

  static func document() throws -> [String: Any] {
    try #require(try Yams.load(yaml: String(contentsOf: documentURL, encoding: .utf8)) as? [String: Any])
  }

  /// The member names of the object schema at `path` (keys walked in order).
  static func properties(_ root: [String: Any], _ path: [String]) throws -> Set<String> {
    var node: Any = root
    for key in path {
      node = try #require((node as? [String: Any])?[key], "no \(key) in \(path)")
    }
    let object = try #require(node as? [String: Any])
    return Set(try #require(object["properties"] as? [String: Any]).keys)
  }

  /// A journal entry's ids are the bundled catalog's, numbered from 1: the document's
  /// ranges are the catalog's, so a client reads what the server accepts.
  @Test func theJournalsIdRangesAreTheBundledCatalogs() throws {
    let catalog = try JournalCatalog.bundled()
    let input = try #require(
      ((try Self.document()["components"] as? [String: Any])?["schemas"] as? [String: Any])?["JournalInput"]
        as? [String: Any])
    let properties = try #require(input["properties"] as? [String: [String: Any]])
    func range(_ name: String) -> [Int?] {
      [properties[name]?["minimum"] as? Int, properties[name]?["maximum"] as? Int]
    }
    #expect(range(JournalInputField.curriculumID.rawValue) == [1, catalog.entries.count])
    #expect(range(JournalInputField.secondaryCurriculumID.rawValue) == [1, catalog.entries.count])
    #expect(range(JournalInputField.strategyID.rawValue) == [1, catalog.strategies.count])
    #expect(catalog.entry(1) != nil && catalog.entry(catalog.entries.count + 1) == nil)
    #expect(catalog.strategy(1) != nil && catalog.strategy(catalog.strategies.count + 1) == nil)
  }

  @Test func theCompiledInDocumentIsTheFile() throws {
    #expect(OpenAPIDocument.yaml == Array(try Data(contentsOf: Self.documentURL)))
  }

  @Test func everyPathIsTheDocuments() throws {
    let paths = try #require(try Self.document()["paths"] as? [String: Any])
    #expect(Set(paths.keys) == Set(APIPath.all))
    #expect(APIPath.progress(id: "x") == APIPath.progressItem.replacingOccurrences(of: "{id}", with: "x"))
  }

  @Test func bodiesAndAnswersHaveTheDocumentsMembers() throws {
    let document = try Self.document()
    let schemas = ["components", "schemas"]
    #expect(
      try Self.properties(document, schemas + ["ProgressInput"])
        == Set(ProgressInputField.allCases.map(\.rawValue)))
    #expect(
      try Self.properties(document, schemas + ["Progress"])
        == Set(ProgressRecord.CodingKeys.allCases.map(\.rawValue)))
    #expect(
      try Self.properties(document, schemas + ["JournalInput"])
        == Set(JournalInputField.allCases.map(\.rawValue)))
    #expect(
      try Self.properties(document, schemas + ["Journal"])
        == Set(JournalRecord.CodingKeys.allCases.map(\.rawValue)))
    // The document's Page holds the counts; each list adds its `entries`.
    #expect(
      try Self.properties(document, schemas + ["Page"]).union(["entries"])
        == Set(Page<ProgressRecord>.CodingKeys.allCases.map(\.rawValue)))
    let envelope =
      try JSONSerialization.jsonObject(
        with: JSONEncoder().encode(ErrorEnvelope(message: "m", code: "c"))) as? [String: [String: Any]]
    #expect(try Self.properties(document, schemas + ["Envelope"]) == Set(envelope?.keys.map { $0 } ?? []))
    #expect(
      try Self.properties(document, schemas + ["Error"]) == Set(envelope?["error"]?.keys.map { $0 } ?? []))
  }

  @Test func eventsHaveTheDocumentsMembersAndLimit() throws {
    let document = try Self.document()
    let schemas = ["components", "schemas"]
    #expect(
      try Self.properties(document, schemas + ["EventsInput"])
        == Set(EventsInputField.allCases.map(\.rawValue)))
    #expect(try Self.properties(document, schemas + ["Event"]) == Set(EventField.allCases.map(\.rawValue)))
    #expect(
      try Self.properties(document, schemas + ["EventsAccepted"])
        == Set(EventsAnswerField.allCases.map(\.rawValue)))
    let events = try #require(
      ((document["components"] as? [String: Any])?["schemas"] as? [String: Any])?["EventsInput"]
        as? [String: Any])
    let array = try #require((events["properties"] as? [String: Any])?["events"] as? [String: Any])
    #expect(array["maxItems"] as? Int == EventsInputField.maxEvents)
  }

  @Test func aBatchHasTheDocumentsMembers() throws {
    let document = try Self.document()
    let post = ["paths", APIPath.progressBatch, "post"]
    let request = post + ["requestBody", "content", "application/json", "schema"]
    #expect(try Self.properties(document, request) == Set(BatchField.allCases.map(\.rawValue)))
    // An item writes progress, or with `resource` a generic resource's row.
    var node: Any = document
    for key in request + ["properties", "items", "items", "oneOf"] {
      node = (node as? [String: Any])?[key] ?? [:]
    }
    #expect(
      (node as? [[String: String]])?.compactMap { $0["$ref"] }
        == ["#/components/schemas/BatchProgressItem", "#/components/schemas/BatchResourceItem"])
    let schemas = ["components", "schemas"]
    #expect(
      try Self.properties(document, schemas + ["BatchResourceItem"])
        == Set(BatchItemField.allCases.map(\.rawValue)))
    #expect(
      try Self.properties(document, schemas + ["BatchProgressItem"])
        == Set(BatchItemField.allCases.filter { $0 != .resource }.map(\.rawValue)))
    let answer = post + ["responses", "200", "content", "application/json", "schema"]
    #expect(
      try Self.properties(document, answer + ["properties", "data", "properties", "results", "items"])
        == Set(BatchResultField.allCases.map(\.rawValue)))
  }

  @Test func parametersAndHeadersAreTheDocuments() throws {
    let document = try Self.document()
    let components = try #require(document["components"] as? [String: Any])
    let shared = try #require(components["parameters"] as? [String: [String: Any]])
    let list = try #require(
      ((document["paths"] as? [String: Any])?[APIPath.progress] as? [String: Any])?["get"] as? [String: Any])
    let names = try #require(list["parameters"] as? [[String: Any]]).map { parameter in
      if let reference = parameter["$ref"] as? String {
        return shared[String(reference.split(separator: "/").last!)]?["name"] as? String
      }
      return parameter["name"] as? String
    }
    #expect(Set(names.compactMap { $0 }) == Set(ListParameter.allCases.map(\.rawValue)))
    #expect(shared["idempotencyKey"]?["name"] as? String == APIHeader.idempotencyKey)
    let schemes = try #require(components["securitySchemes"] as? [String: [String: Any]])
    #expect(schemes["apiKey"]?["name"] as? String == APIHeader.apiKey)
    #expect(schemes["bearer"]?["scheme"] as? String == "bearer" && APIHeader.authorization == "Authorization")
  }

  /// What the server writes reads back through the client's decoding as the same values,
  /// and as the same JSON as Foundation's writer.
  @Test func writtenRowsAndPagesReadBackAsTheirValues() throws {
    let rows = [
      ProgressRecord(
        id: "r-1", type: "mood_score", quantity: 7, date: "2026-03-02",
        notes: "tea \"hot\" \\ \n\t\u{1} 😀 / é",
        loggedAt: "2026-03-02T08:00:00Z", entryID: "e-1"),
      ProgressRecord(
        id: "r-2", type: "mood_score", quantity: 7.5, date: "2026-03-03", loggedAt: "2026-03-03"),
    ]
    let page = Page(entries: rows, total: 12, limit: 2, offset: 4)
    let bytes = Data(JSONText.data(page))
    let decoded = try JSONDecoder().decode(DataEnvelope<Page<ProgressRecord>>.self, from: bytes).data
    #expect(decoded.entries == rows && decoded.total == 12 && decoded.limit == 2 && decoded.offset == 4)
    let foundation = try JSONSerialization.data(
      withJSONObject: JSONSerialization.jsonObject(with: bytes), options: [.sortedKeys])
    #expect(
      try JSONSerialization.jsonObject(with: foundation) as? NSDictionary
        == JSONSerialization.jsonObject(with: bytes) as? NSDictionary)
    #expect(
      String(decoding: bytes, as: UTF8.self).hasPrefix(
        #"{"data":{"entries":[{"date":"2026-03-02","entry_id":"e-1","id":"r-1""#))
    #expect(String(decoding: bytes, as: UTF8.self).hasSuffix(#""limit":2,"offset":4,"total":12}}"#))
    let journal = JournalRecord(
      id: "j-1", createdAt: "2026-03-02T08:00:00Z", curriculumID: 3, strategyID: 9, initiatedBy: "self")
    let written = Data(JSONText.data(journal))
    #expect(try JSONDecoder().decode(DataEnvelope<JournalRecord>.self, from: written).data == journal)
    #expect(
      String(decoding: written, as: UTF8.self)
        == #"{"data":{"created_at":"2026-03-02T08:00:00Z","curriculum_id":3,"id":"j-1","initiated_by":"self","#
        + #""secondary_curriculum_id":null,"strategy_id":9}}"#)
  }

  /// Numbers written in place are the text `number(_:)` makes, at the edges of `Int` too.
  @Test(arguments: [
    0, -0.0, 1, -1, 7, 10, 99, 100, -1_000, 123_456_789, 7.5, -0.25, 1e300, -1e-300,
    Double(Int.max), Double(Int.min), 9_007_199_254_740_994, .infinity, -.infinity, .nan,
  ])
  func aNumberWrittenInPlaceIsItsText(_ value: Double) {
    var bytes: [UInt8] = []
    JSONText.appendNumber(value, to: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == JSONText.number(value))
  }

  @Test(arguments: [0, 1, -1, 9, 10, -10, 4_096, Int.max, Int.min, Int.min + 1])
  func anIntegerWrittenInPlaceIsItsText(_ value: Int) {
    var bytes = Array("x".utf8)
    JSONText.appendInteger(value, to: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == "x" + String(value))
  }

  @Test func aBatchAnswerCarriesEachItemsAnswerBesideItsStatus() throws {
    let bytes = BatchAnswer.encode([
      (
        201, Data(JSONText.data(ProgressRecord(id: "a", type: "mood_score", quantity: 3, date: "2026-03-02")))
      ),
      (204, Data()),
      (400, Data(#" {"error":{"code":"validation_failed","message":"no"}} "#.utf8)),
    ])
    let answer = try JSONDecoder().decode(BatchAnswer.self, from: bytes)
    #expect(answer.results.map(\.status) == [201, 204, 400])
    #expect(answer.results[0].data?.id == "a" && answer.results[1].data == nil)
    #expect(answer.results[2].refusal == "no")
  }
}
