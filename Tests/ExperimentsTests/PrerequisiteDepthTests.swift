import Experiments
import StrictJSON
import Testing

/// Prerequisites are evaluated by nested calls: at most `maxPrerequisiteDepth` deep, so a
/// payload's long chain never overflows the stack, and its length is known before any
/// evaluation.
@Suite("Prerequisite depth")
struct PrerequisiteDepthTests {
  /// `top` is forced on behind a chain of `links` prerequisites (`gate-1` … `gate-<links>`),
  /// each on when the next one is.
  static func chain(links: Int) -> [String: Feature] {
    func gated(by next: Int, on: JSONValue, off: JSONValue) -> Feature {
      var rule = FeatureRule(force: on)
      rule.parentConditions = [ParentCondition(id: "gate-\(next)", condition: ["value": true])]
      return Feature(defaultValue: off, rules: [rule])
    }
    var features = ["top": gated(by: 1, on: "on", off: "off"), "gate-\(links)": Feature(defaultValue: true)]
    for index in 1..<links { features["gate-\(index)"] = gated(by: index + 1, on: true, off: false) }
    return features
  }

  static func evaluate(_ features: [String: Feature]) -> FeatureResult {
    var context = ExperimentContext()
    context.features = features
    return GrowthBook.evalFeature("top", in: &context)
  }

  @Test func aChainOf64IsEvaluatedThrough() {
    let result = Self.evaluate(Self.chain(links: 64))
    #expect(result.value == "on")
    #expect(result.source == .force)
  }

  @Test func aDeeperChainIsNullWithoutEvaluatingPastTheLimit() {
    for links in [65, 2_000, 100_000] {
      let result = Self.evaluate(Self.chain(links: links))
      #expect(result.value == .null, "\(links)")
      #expect(result.source == .prerequisiteTooDeep, "\(links)")
    }
  }

  @Test func theLongestChainIsFoundWithoutRecursion() {
    let (chain, links) = GrowthBook.longestPrerequisiteChain(Self.chain(links: 100_000))
    #expect(links == 100_000)
    #expect(chain.count == 100_001)
    #expect(chain.prefix(3) == ["top", "gate-1", "gate-2"])
    #expect(chain.last == "gate-100000")
    #expect(GrowthBook.longestPrerequisiteChain(["a": Feature()]).links == 0)
  }

  /// A cycle is followed once around, as evaluation does before it answers
  /// cyclicPrerequisite; a missing prerequisite is one link.
  @Test func aCycleOrAMissingFeatureEndsAChain() {
    var features = Self.chain(links: 3)
    var back = FeatureRule(force: true)
    back.parentConditions = [ParentCondition(id: "gate-1", condition: ["value": true])]
    features["gate-3"] = Feature(defaultValue: true, rules: [back])
    let (chain, links) = GrowthBook.longestPrerequisiteChain(features)
    #expect(links == 4)
    #expect(chain == ["top", "gate-1", "gate-2", "gate-3", "gate-1"])
    #expect(Self.evaluate(features).source == .cyclicPrerequisite)

    features["gate-3"] = Feature(defaultValue: true, rules: [FeatureRule(force: true)])
    features["gate-3"]?.rules[0].parentConditions = [ParentCondition(id: "missing", condition: [:])]
    #expect(GrowthBook.longestPrerequisiteChain(features).links == 4)
  }

  /// `top` behind `levels` levels of two features, each naming both of the next level's.
  static func diamond(levels: Int) -> [String: Feature] {
    func gated(by next: Int, on: JSONValue, off: JSONValue) -> Feature {
      var rule = FeatureRule(force: on)
      rule.parentConditions = [
        ParentCondition(id: "a-\(next)", condition: ["value": true]),
        ParentCondition(id: "b-\(next)", condition: ["value": true]),
      ]
      return Feature(defaultValue: off, rules: [rule])
    }
    var features = [
      "top": gated(by: 1, on: "on", off: "off"), "a-\(levels)": Feature(defaultValue: true),
      "b-\(levels)": Feature(defaultValue: true),
    ]
    for index in 1..<levels {
      features["a-\(index)"] = gated(by: index + 1, on: true, off: false)
      features["b-\(index)"] = gated(by: index + 1, on: true, off: false)
    }
    return features
  }

  @Test func prerequisitesThatFanOutAreCountedAndStoppedAtTheBudget() {
    // 12 levels: 2 + 4 + … + 2^12 = 8,190 evaluations, within the budget.
    #expect(GrowthBook.prerequisiteVisits(Self.diamond(levels: 12))["top"] == 8_190)
    let within = Self.evaluate(Self.diamond(levels: 12))
    #expect(within.value == "on" && within.source == .force)
    // 13 levels: 16,382; 60 levels would be 2^61 and never finish.
    #expect(
      GrowthBook.prerequisiteVisits(Self.diamond(levels: 13))["top"] == GrowthBook.maxPrerequisiteVisits + 1)
    for levels in [13, 60] {
      let result = Self.evaluate(Self.diamond(levels: levels))
      #expect(result.value == .null, "\(levels)")
      #expect(result.source == .prerequisitesTooMany, "\(levels)")
    }
  }
}
