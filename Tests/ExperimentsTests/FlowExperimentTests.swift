import Experiments
import StrictJSON
import Testing

@Suite("Flow experiments: validation and assignment")
struct FlowExperimentTests {
  private let base = FlowExperiment(key: "k", flow: "onboarding", variations: ["standard", "short"])

  private func messages(_ change: (inout FlowExperiment) -> Void) -> [String] {
    var experiment = base
    change(&experiment)
    return experiment.problems().map { "\($0.field): \($0.message)" }
  }

  @Test func aWellFormedDefinitionHasNoProblems() {
    #expect(base.problems().isEmpty)
    #expect(
      messages {
        $0.weights = [0.3333, 0.6667]
        $0.coverage = 0
        $0.hashVersion = 2
        $0.condition = ["skill": ["$in": ["beginner", "intermediate"]], "daysSinceFirstLaunch": ["$gte": 7]]
      }.isEmpty)
  }

  @Test func eachFieldProblemIsNamed() {
    #expect(
      messages { $0.variations = ["standard"] } == [
        "variations: an experiment needs at least two variations, got 1"
      ])
    #expect(messages { $0.variations = ["a", "b", "a"] } == ["variations: variation 'a' is listed twice"])
    #expect(messages { $0.weights = [1] } == ["weights: weights has 1 values for 2 variations"])
    #expect(messages { $0.weights = [0.5, 0.4] } == ["weights: weights must sum to 1 (±0.001), got 0.9"])
    #expect(messages { $0.weights = [0.5, 0.5005] }.isEmpty)
    #expect(messages { $0.weights = [1.5, -0.5] } == ["weights: weights must not be negative, got -0.5"])
    #expect(messages { $0.coverage = 1.5 } == ["coverage: coverage must be between 0 and 1, got 1.5"])
    #expect(messages { $0.coverage = -0.1 } == ["coverage: coverage must be between 0 and 1, got -0.1"])
    #expect(
      messages { $0.hashVersion = 3 } == [
        "hashVersion: unknown hashVersion 3 (GrowthBook has 1, the default, and 2)"
      ])
    #expect(
      messages { $0.namespace = Namespace(id: "n", start: 0.6, end: 0.2) }
        == ["namespace: namespace range must satisfy 0 ≤ start ≤ end ≤ 1, got 0.6…0.2"])
  }

  @Test func conditionProblemsCarryTheirPath() {
    let problems = GrowthBook.conditionProblems(
      [
        "skill": ["$equals": "beginner"], "$nand": [], "age": ["$in": 3],
        "$or": [["name": ["$regex": "("]], "x"], "tags": ["$type": "list", "$exists": "yes"],
        "mixed": ["$eq": 1, "plain": 2],
      ])
    #expect(
      problems.map(\.description) == [
        "$nand: unknown operator '$nand' (conditions start with an attribute or one of $and, $or, $nor, $not)",
        "$or.[0].name.$regex: $regex pattern '(' is not a valid regular expression",
        "$or.[1]: a condition is a mapping of attributes to values or operators, got 'x'",
        "age.$in: $in takes a list, got the number 3",
        "mixed.plain: 'plain' is mixed with operators; a mapping is either all operators or a literal value",
        "skill.$equals: unknown operator '$equals' (operators: \(GrowthBook.valueOperators.joined(separator: ", ")))",
        "tags.$exists: $exists takes true or false, got 'yes'",
        "tags.$type: $type takes one of null, boolean, number, string, array, object, got 'list'",
      ])
    #expect(GrowthBook.conditionProblems(["skill": "beginner", "$not": ["skill": ["$eq": "x"]]]).isEmpty)
    #expect(
      GrowthBook.conditionProblems([
        "tags": ["$elemMatch": ["$gt": 2]], "list": ["$elemMatch": ["id": ["$bad": 1]]],
      ])
      .map(\.description) == [
        "list.$elemMatch.id.$bad: unknown operator '$bad' (operators: \(GrowthBook.valueOperators.joined(separator: ", ")))"
      ])
  }

  @Test func assignmentIsGrowthBooksAndForcedVariationsWin() {
    var experiment = base
    experiment.weights = [0.2, 0.8]
    experiment.coverage = 0.7
    for index in 0..<500 {
      let attributes: [String: JSONValue] = ["id": .string("user-\(index)")]
      let result = GrowthBook.run(experiment.growthBook, in: ExperimentContext(attributes: attributes))
      let assignment = experiment.assign(attributes: attributes)
      #expect(assignment.variationId == result.variationId)
      #expect(assignment.variation == experiment.variations[result.variationId])
      #expect(assignment.inExperiment == result.inExperiment)
      #expect(assignment.hashUsed == result.hashUsed)
      let forced = experiment.assign(attributes: attributes, forced: "short")
      #expect(forced.variation == "short" && forced.inExperiment && !forced.hashUsed)
    }
    experiment.condition = ["skill": "beginner"]
    #expect(!experiment.assign(attributes: ["id": "u"]).inExperiment)
    #expect(experiment.assign(attributes: ["id": "u"]).variation == "standard")
    #expect(experiment.assign(attributes: ["id": "u"], forced: "short").variation == "short")
  }
}
