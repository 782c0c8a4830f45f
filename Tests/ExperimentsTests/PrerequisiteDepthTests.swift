import Experiments
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
}
