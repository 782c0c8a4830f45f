import Experiments
import StrictJSON
import Testing

struct AssignmentTests {
  static let users = (1...100_000).map { "user-\($0)" }

  static func assign(_ experiment: Experiment) -> [Int] {
    users.map { user in
      GrowthBook.run(experiment, in: ExperimentContext(attributes: ["id": .string(user)])).variationId
    }
  }

  /// 100,000 users on a 50/50 split: each side within 1% of the total of even
  /// (49,000…51,000), and a second run assigns every user the same variation.
  @Test(arguments: [1, 2])
  func hundredThousandUsersSplitEvenlyAndStably(hashVersion: Int) {
    let experiment = Experiment(
      key: "checkin-length", variations: ["full", "quick"], weights: [0.5, 0.5], hashVersion: hashVersion)
    let first = Self.assign(experiment)
    let quick = first.filter { $0 == 1 }.count
    let full = first.filter { $0 == 0 }.count
    print("100k split, hash v\(hashVersion): full \(full), quick \(quick)")
    #expect(full + quick == 100_000)
    #expect((49_000...51_000).contains(full))
    #expect((49_000...51_000).contains(quick))
    #expect(Self.assign(experiment) == first)
  }

  @Test func seededHashMatchesTheOneShotHash() {
    let seeded = SeededHash(seed: "checkin-length")
    for user in ["user-1", "user-42", "ünïcödé-😀", ""] {
      #expect(
        seeded.hash(user, version: 1) == GrowthBook.hash(seed: "checkin-length", value: user, version: 1))
      #expect(
        seeded.hash(user, version: 2) == GrowthBook.hash(seed: "checkin-length", value: user, version: 2))
    }
    #expect(seeded.hash("user-1", version: 3) == nil)
  }

  /// Non-ASCII text hashes by UTF-16 code units, like the JS SDK: values computed with
  /// an independent FNV-1a over UTF-16LE in Python for these inputs.
  @Test func nonASCIIHashesByUTF16CodeUnits() {
    #expect(GrowthBook.hash(seed: "", value: "é", version: 1) == 0.94)
    #expect(GrowthBook.hash(seed: "s", value: "😀", version: 2) == 0.2801)
  }

  @Test func numericAndNestedHashAttributesHashTheirTextAsInJavaScript() {
    let experiment = Experiment(key: "k", variations: [0, 1], hashAttribute: "user.id", hashVersion: 2)
    let nested = GrowthBook.run(experiment, in: ExperimentContext(attributes: ["user": ["id": 123]]))
    let flat = GrowthBook.run(
      Experiment(key: "k", variations: [0, 1], hashVersion: 2),
      in: ExperimentContext(attributes: ["id": "123"]))
    // The result reports the value as the user has it (GrowthBook's SDKs do); its text is hashed.
    #expect(nested.hashValue == 123)
    #expect(nested.inExperiment)
    #expect(nested.variationId == flat.variationId)
    #expect(nested.bucket == flat.bucket)
  }

  /// JS treats 0, false and "" as no value (`!hashValue`): such users are never bucketed.
  @Test(arguments: [JSONValue.number(0), false, "", nil])
  func falsyHashAttributeExcludesTheUser(id: JSONValue) {
    let result = GrowthBook.run(
      Experiment(key: "k", variations: [0, 1]), in: ExperimentContext(attributes: ["id": id]))
    #expect(!result.inExperiment)
    #expect(!result.hashUsed)
    #expect(result.hashValue == "")
  }

  @Test func forcedVariationOutOfRangeFallsBackToControlOutsideTheExperiment() {
    let context = ExperimentContext(attributes: ["id": "1"], forcedVariations: ["k": 5])
    let result = GrowthBook.run(Experiment(key: "k", variations: ["a", "b"]), in: context)
    #expect(result.value == "a")
    #expect(!result.inExperiment)
  }

  @Test func metaNamesTheVariationInTheResult() {
    let experiment = Experiment(
      key: "k", variations: ["full", "quick"], force: 1,
      meta: [VariationMeta(key: "control", name: "Full"), VariationMeta(key: "short", name: "Quick")])
    let result = GrowthBook.run(experiment, in: ExperimentContext(attributes: ["id": "1"]))
    #expect(result.key == "short")
    #expect(result.name == "Quick")
  }

  /// A context is a value: its members beyond the attributes sit behind one reference, and
  /// changing a copy must never show in the original, nor in copies made before.
  @Test func contextCopiesChangeIndependently() {
    let plain = ExperimentContext(attributes: ["id": "1"])
    var a = plain
    var b = a
    b.forcedVariations["k"] = 1
    #expect(a.forcedVariations.isEmpty)
    #expect(b.forcedVariations == ["k": 1])
    a.url = "https://example.test/?k=0"
    #expect(b.url == nil)
    let c = b
    b.savedGroups["g"] = ["1"]
    b.stickyBucketAssignmentDocs = [:]
    b.changedStickyBuckets.append("id||1")
    #expect(c.savedGroups.isEmpty && c.stickyBucketAssignmentDocs == nil && c.changedStickyBuckets.isEmpty)
    #expect(c == ExperimentContext(attributes: ["id": "1"], forcedVariations: ["k": 1]))
    #expect(c != b && a != b && plain == ExperimentContext(attributes: ["id": "1"]))
    // The copy made before a change still runs as it was: forced by c, hashed by plain.
    let experiment = Experiment(key: "k", variations: ["a", "b"], weights: [1, 0])
    #expect(GrowthBook.run(experiment, in: c).variationId == 1)
    #expect(GrowthBook.run(experiment, in: plain).variationId == 0)
  }
}
