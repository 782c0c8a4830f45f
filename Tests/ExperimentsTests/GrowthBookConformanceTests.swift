import Experiments
import Foundation
import StrictJSON
import Testing

/// Every case of GrowthBook's shared SDK test file for the groups Wellflow implements.
@Suite("GrowthBook conformance")
struct GrowthBookConformanceTests {
  /// The groups run here with their sizes in spec 0.8.0; a changed file fails loudly.
  static let groups: KeyValuePairs<String, Int> = [
    "hash": 15, "getBucketRange": 13, "chooseVariation": 13, "getEqualWeights": 6,
    "inNamespace": 16, "evalCondition": 248, "run": 73, "getQueryStringOverride": 16,
    "feature": 55, "stickyBucket": 13,
  ]

  /// Cases not run, by group and name, with the reason. Empty: every case of every group
  /// above runs. A case listed here must exist, so the list cannot go stale silently.
  static let skipped: [String: [String: String]] = [:]

  static func named(_ group: String) -> [NamedCase] {
    ConformanceFixture.cases(group).enumerated().compactMap { index, fields in
      let name = fields.first?.stringValue ?? "\(group) #\(index + 1)"
      guard skipped[group]?[name] == nil else { return nil }
      return NamedCase(name: name, fields: fields)
    }
  }

  /// Cases without a name field (hash, getEqualWeights) are named by their inputs.
  static func unnamed(_ group: String) -> [NamedCase] {
    ConformanceFixture.cases(group).map { fields in
      let inputs = fields.dropLast().map { $0 == .null ? "null" : $0.jsonText }
      return NamedCase(name: "\(group)(\(inputs.joined(separator: ", ")))", fields: fields)
    }
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: ConformanceFixture.sharedFile.path)))
  func committedCopyMatchesTheSharedFile() throws {
    let shared = try Data(contentsOf: ConformanceFixture.sharedFile)
    let copy = try Data(contentsOf: ConformanceFixture.committedCopy)
    #expect(copy == shared, "Fixtures/growthbook-cases.json differs from shared/conformance; copy it again")
  }

  @Test func fixtureLoadsWithEveryGroupAtItsSpecSize() throws {
    let all = try ConformanceFixture.groups.get()
    #expect(all["specVersion"] == "0.8.0")
    var summary: [String] = []
    for (group, size) in Self.groups {
      let total = ConformanceFixture.cases(group).count
      #expect(total == size, "group \(group)")
      let skipped = Self.skipped[group] ?? [:]
      let names = Set(ConformanceFixture.cases(group).compactMap { $0.first?.stringValue })
      for name in skipped.keys {
        #expect(names.contains(name), "skip list names a case that does not exist: \(group) \(name)")
      }
      summary.append("\(group) \(total - skipped.count)/\(total)")
    }
    print("GrowthBook conformance: " + summary.joined(separator: ", "))
  }

  @Test(arguments: unnamed("hash"))
  func hash(_ testCase: NamedCase) throws {
    let f = testCase.fields
    let result = GrowthBook.hash(
      seed: try #require(f[0].stringValue), value: try #require(f[1].stringValue),
      version: Int(try #require(f[2].numberValue)))
    #expect(result == f[3].numberValue)
  }

  @Test(arguments: named("getBucketRange"))
  func getBucketRange(_ testCase: NamedCase) throws {
    let input = try #require(testCase.fields[1].arrayValue)
    let weights = try input[2] == .null ? nil : input[2].decoded(as: [Double].self)
    let ranges = GrowthBook.bucketRanges(
      numVariations: Int(try #require(input[0].numberValue)), coverage: try #require(input[1].numberValue),
      weights: weights)
    let expected = try bucketRanges(testCase.fields[2])
    #expect(
      ranges.map { [floored($0.start), floored($0.end)] }
        == expected.map { [floored($0.start), floored($0.end)] })
  }

  @Test(arguments: named("chooseVariation"))
  func chooseVariation(_ testCase: NamedCase) throws {
    let f = testCase.fields
    let chosen = GrowthBook.chooseVariation(try #require(f[1].numberValue), ranges: try bucketRanges(f[2]))
    #expect((chosen ?? -1) == Int(try #require(f[3].numberValue)))
  }

  @Test(arguments: unnamed("getEqualWeights"))
  func getEqualWeights(_ testCase: NamedCase) throws {
    let f = testCase.fields
    let weights = GrowthBook.equalWeights(Int(try #require(f[0].numberValue)))
    #expect(weights.map(floored) == (try f[1].decoded(as: [Double].self)).map(floored))
  }

  @Test(arguments: named("inNamespace"))
  func inNamespace(_ testCase: NamedCase) throws {
    let f = testCase.fields
    let namespace = try f[2].decoded(as: Namespace.self)
    #expect(GrowthBook.inNamespace(try #require(f[1].stringValue), namespace) == f[3].boolValue)
  }

  @Test(arguments: named("getQueryStringOverride"))
  func getQueryStringOverride(_ testCase: NamedCase) throws {
    let f = testCase.fields
    let forced = GrowthBook.queryStringOverride(
      key: try #require(f[1].stringValue), url: try #require(f[2].stringValue),
      numVariations: Int(try #require(f[3].numberValue)))
    #expect(forced.map(Double.init) == f[4].numberValue)
  }

  @Test(arguments: named("evalCondition"))
  func evalCondition(_ testCase: NamedCase) throws {
    let f = testCase.fields
    let savedGroups = try f.count > 4 ? f[4].decoded(as: [String: [JSONValue]].self) : [:]
    #expect(GrowthBook.evalCondition(f[2], f[1], savedGroups: savedGroups) == f[3].boolValue)
  }

  @Test(arguments: named("run"))
  func run(_ testCase: NamedCase) throws {
    let f = testCase.fields
    let context = try Self.context(f[1])
    let experimentJSON = try #require(f[2].objectValue)
    let unknown = Set(experimentJSON.keys).subtracting(Self.experimentKeys)
    #expect(unknown.isEmpty, "experiment fields this port does not model: \(unknown.sorted())")
    let experiment = try f[2].decoded(as: Experiment.self)
    let result = GrowthBook.run(experiment, in: context)
    #expect(result.value == f[3])
    #expect(result.inExperiment == f[4].boolValue)
    #expect(result.hashUsed == f[5].boolValue)
  }

  /// `[name, context, featureKey, expected]`: value, on, off, source and ruleId always;
  /// the experiment and its result when a rule's experiment decided (absent otherwise).
  @Test(arguments: named("feature"))
  func feature(_ testCase: NamedCase) throws {
    let f = testCase.fields
    var context = try Self.context(f[1])
    let result = GrowthBook.evalFeature(try #require(f[2].stringValue), in: &context)
    let expected = try #require(f[3].objectValue)
    let unknown = Set(expected.keys).subtracting([
      "value", "on", "off", "source", "ruleId", "experiment", "experimentResult",
    ])
    #expect(unknown.isEmpty, "expected fields this port does not check: \(unknown.sorted())")
    #expect(result.value == expected["value"])
    #expect(.bool(result.on) == expected["on"])
    #expect(.bool(result.off) == expected["off"])
    #expect(.string(result.source.rawValue) == expected["source"])
    #expect(.string(result.ruleId) == expected["ruleId"])
    #expect(try result.experiment.map(Self.json) == expected["experiment"])
    #expect(try result.experimentResult.map(Self.json) == expected["experimentResult"])
  }

  /// `[name, context, storedDocs, featureKey, expectedResult, expectedDocs]`: the stored
  /// documents are what the sticky bucket service holds; as GrowthBook's SDKs do, the
  /// context loads those of the user's attribute values, and afterwards holds expectedDocs.
  @Test(arguments: named("stickyBucket"))
  func stickyBucket(_ testCase: NamedCase) throws {
    let f = testCase.fields
    var contextJSON = try #require(f[1].objectValue)
    var documents =
      try contextJSON.removeValue(forKey: "stickyBucketAssignmentDocs")
      .map { try $0.decoded(as: [String: StickyBucketDocument].self) } ?? [:]
    var context = try Self.context(.object(contextJSON))
    for document in try f[2].decoded(as: [StickyBucketDocument].self)
    where context.attributes[document.attributeName] == .string(document.attributeValue) {
      documents[document.key] = document
    }
    context.stickyBucketAssignmentDocs = documents
    let result = GrowthBook.evalFeature(try #require(f[3].stringValue), in: &context)
    #expect(try result.experimentResult.map(Self.json) ?? .null == f[4])
    #expect(try JSONValue.object((context.stickyBucketAssignmentDocs ?? [:]).mapValues(Self.json)) == f[5])
    // Every changed document is named for the store to save.
    for key in context.changedStickyBuckets { #expect(context.stickyBucketAssignmentDocs?[key] != nil) }
  }

  /// Our own case beside GrowthBook's file (which has none at the boundary): a rollout
  /// includes a user whose hash equals its coverage, as GrowthBook's SDKs do (`n <= coverage`).
  /// user-39 hashes to exactly 0.400 under the feature's key (version 1), user-9518 to 0.4000
  /// (version 2); their neighbours at 0.399 and 0.401 fall on either side.
  @Test(arguments: [
    ("user-39", 1, 0.4, true), ("user-920", 1, 0.399, true), ("user-492", 1, 0.401, false),
    ("user-9518", 2, 0.4, true),
  ])
  func aRolloutIncludesTheUserWhoseHashIsItsCoverage(
    user: String, hashVersion: Int, hash: Double, included: Bool
  ) throws {
    #expect(GrowthBook.hash(seed: "wellflow.checkin", value: user, version: hashVersion) == hash)
    let payload = """
      {"attributes": {"id": "\(user)"}, "features": {"wellflow.checkin": {"defaultValue": "full", "rules": [
        {"id": "rollout", "force": "quick", "coverage": 0.4, "hashAttribute": "id", "hashVersion": \(hashVersion)}]}}}
      """
    var context = try Self.context(try JSONDecoder().decode(JSONValue.self, from: Data(payload.utf8)))
    let result = GrowthBook.evalFeature("wellflow.checkin", in: &context)
    #expect(result.value == .string(included ? "quick" : "full"))
    #expect(result.source == (included ? .force : .defaultValue))
    #expect(result.ruleId == (included ? "rollout" : ""))
  }

  /// A payload's bucket versions are any integers: a huge minBucketVersion must not be
  /// counted up to (it once was, and the run never ended).
  @Test func aHugeMinBucketVersionIsAnsweredAtOnce() throws {
    let payload = #"""
      {"attributes": {"id": "user-1"}, "features": {"wellflow.checkin": {"defaultValue": "full", "rules": [
        {"key": "exp", "variations": ["full", "quick"], "weights": [0.5, 0.5], "bucketVersion": 9007199254740991,
         "minBucketVersion": 9007199254740991, "meta": [{"key": "0"}, {"key": "1"}]}]}}}
      """#
    var context = try Self.context(try JSONDecoder().decode(JSONValue.self, from: Data(payload.utf8)))
    context.stickyBucketAssignmentDocs = [
      "id||user-1": StickyBucketDocument(
        attributeName: "id", attributeValue: "user-1", assignments: ["exp__3": "1"])
    ]
    let result = GrowthBook.evalFeature("wellflow.checkin", in: &context)
    // An assignment under an older version blocks the user: the default, from no experiment.
    #expect(result.value == .string("full"))
    #expect(result.experimentResult == nil)
  }

  static func json<T: Encodable>(_ value: T) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
  }

  static let experimentKeys: Set<String> = [
    "key", "variations", "weights", "coverage", "condition", "parentConditions", "active", "force",
    "hashAttribute", "hashVersion", "seed", "namespace", "filters", "ranges", "meta", "name",
  ]

  /// Maps a case's context onto `ExperimentContext`, refusing fields it would ignore.
  static func context(_ json: JSONValue) throws -> ExperimentContext {
    let fields = try #require(json.objectValue)
    var context = ExperimentContext()
    for (key, value) in fields {
      switch key {
      case "attributes": context.attributes = try #require(value.objectValue)
      case "enabled": context.enabled = try #require(value.boolValue as Bool?)
      case "qaMode": context.qaMode = try #require(value.boolValue as Bool?)
      case "url": context.url = try #require(value.stringValue as String?) as String
      case "forcedVariations": context.forcedVariations = try value.decoded(as: [String: Int].self)
      case "savedGroups": context.savedGroups = try value.decoded(as: [String: [JSONValue]].self)
      case "features": context.features = try value.decoded(as: [String: Feature].self)
      case "contextualBandits": context.contextualBandits = try #require(value.objectValue)
      case "stickyBucketAssignmentDocs":
        context.stickyBucketAssignmentDocs = try value.decoded(as: [String: StickyBucketDocument].self)
      default:
        throw CaseFormatError(description: "context field \(key) is not modelled")
      }
    }
    return context
  }
}

extension JSONValue {
  /// Compact JSON text, for case names.
  var jsonText: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "?"
  }
}
