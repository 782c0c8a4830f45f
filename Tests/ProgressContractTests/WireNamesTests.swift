import Foundation
import ProgressContract
import Testing

/// Only the contract spells the wire's names: a body member or progress type written out
/// anywhere else in the product's sources is a second copy a rename would miss.
@Suite struct WireNamesTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardized

  /// The contract's multi-word names: a single word (`type`, `notes`, `id`) is any code's.
  /// `created_at` and `initiated_by` are also the journal's own column and event names,
  /// so they are left out.
  static let names: Set<String> = {
    let members =
      ProgressInputField.allCases.map(\.rawValue) + JournalInputField.allCases.map(\.rawValue)
      + ProgressRecord.CodingKeys.allCases.map(\.rawValue) + JournalRecord.CodingKeys.allCases.map(\.rawValue)
      + BatchItemField.allCases.map(\.rawValue) + [ProgressType.moodScore]
    return Set(members.filter { $0.contains("_") }).subtracting(["created_at", "initiated_by"])
  }()

  /// The contract's own headers, found in any case (`"x-api-key"` is the same header).
  static let headers = [APIHeader.apiKey, APIHeader.idempotencyKey, APIHeader.retryAfter]

  /// Where the product's sources are, less the contract itself.
  static let excluded = ["Modules/ProgressAPI/"]

  /// Quoted occurrences of a wire name (`"logged_at"`, `\"logged_at\"`) outside comments
  /// and outside a SQL row's column read (`row["strategy_id"]`, a feature's own table).
  static func spellings(in text: String) -> [String] {
    var found: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let code = line.drop { $0 == " " }
      if code.hasPrefix("//") { continue }
      let lowered = line.lowercased()
      for header in headers where lowered.contains(#""\#(header.lowercased())""#) {
        found.append(header)
      }
      for name in names {
        for quote in [#""\#(name)""#, #"\"\#(name)\""#] {
          var rest = Substring(line)
          while let range = rest.range(of: quote) {
            let before = rest[..<range.lowerBound]
            if !before.hasSuffix("row[") { found.append(name) }
            rest = rest[range.upperBound...]
          }
        }
      }
    }
    return found
  }

  @Test func theNamesAreTheContractsOwn() {
    #expect(Self.names.isSuperset(of: ["logged_at", "entry_id", "curriculum_id", "mood_score"]))
  }

  @Test func theDetectorFindsAWireNameAndLeavesColumnsAndCommentsAlone() {
    #expect(Self.spellings(in: #"object["logged_at"] = date"#) == ["logged_at"])
    #expect(Self.spellings(in: #"let body = "{\"entry_id\":1}""#) == ["entry_id"])
    #expect(Self.spellings(in: #"guard type == "mood_score""#) == ["mood_score"])
    #expect(Self.spellings(in: #"strategy: row["strategy_id"],"#).isEmpty)
    #expect(Self.spellings(in: #"  /// sends {"logged_at": …}"#).isEmpty)
    #expect(Self.spellings(in: #"static let key = Self("X-API-Key")!"#) == ["X-API-Key"])
    #expect(Self.spellings(in: #"["authorization", "idempotency-key"]"#) == ["Idempotency-Key"])
    #expect(Self.spellings(in: #"answer.header(APIHeader.retryAfter)"#).isEmpty)
  }

  @Test func noProductSourceOutsideTheContractSpellsAWireName() throws {
    var offenders: [String] = []
    for top in ["Modules", "Apps"] {
      let base = Self.root.appendingPathComponent(top)
      let files = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
      for case let file as URL in files where file.pathExtension == "swift" {
        let path = String(file.standardized.path.dropFirst(Self.root.path.count + 1))
        guard path.contains("/Sources/"), !Self.excluded.contains(where: path.hasPrefix) else { continue }
        let found = Self.spellings(in: try String(contentsOf: file, encoding: .utf8))
        offenders += found.map { "\(path): \($0)" }
      }
    }
    #expect(offenders.isEmpty, "wire names spelled outside ProgressContract: \(offenders)")
  }
}
