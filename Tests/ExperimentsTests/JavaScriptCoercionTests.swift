import Experiments
import StrictJSON
import Testing

/// JS coercions the shared cases do not reach, checked against what Node prints for the
/// same expressions (`String(1e21)` is "1e+21", `Number("0x10")` is 16, …).
struct JavaScriptCoercionTests {
  @Test(arguments: [
    (JSONValue.number(1e21), "1e+21"), (1e-7, "1e-7"), (0.000001, "0.000001"), (100, "100"),
    (-1.5, "-1.5"), (123_456_789_012, "123456789012"), (0.1, "0.1"), (true, "true"), (.null, "null"),
    (.array([1, nil, "a"]), "1,,a"), (.object(["k": 1]), "[object Object]"),
  ])
  func stringConditionComparesJavaScriptText(attribute: JSONValue, text: String) {
    #expect(GrowthBook.evalCondition(["x": attribute], ["x": .string(text)]))
  }

  @Test(arguments: [
    (JSONValue.string("0x10"), 16.0), (" 8 ", 8), ("", 0), ("1e3", 1000), (true, 1), (.null, 0),
    (.array([5]), 5),
  ])
  func numberConditionComparesJavaScriptNumbers(attribute: JSONValue, number: Double) {
    #expect(GrowthBook.evalCondition(["x": attribute], ["x": .number(number)]))
  }

  @Test(arguments: [JSONValue.string("8px"), "1e", ".", .array(["a"]), .object(["k": 1])])
  func nonNumericTextIsNaNAndNeverCompares(attribute: JSONValue) {
    #expect(!GrowthBook.evalCondition(["x": attribute], ["x": ["$gte": 0]]))
    #expect(!GrowthBook.evalCondition(["x": attribute], ["x": ["$lt": 0]]))
  }

  @Test func elemMatchSkipsFalsyItemsAsJavaScriptDoes() {
    #expect(!GrowthBook.evalCondition(["n": [0, ""]], ["n": ["$elemMatch": ["$exists": true]]]))
    #expect(GrowthBook.evalCondition(["n": [0, 2]], ["n": ["$elemMatch": ["$gt": 1]]]))
  }

  @Test func pathsReachIntoArrays() {
    #expect(GrowthBook.evalCondition(["tags": ["a", "b"]], ["tags.1": "b"]))
    #expect(GrowthBook.evalCondition(["tags": ["a", "b"]], ["tags.length": 2]))
    #expect(!GrowthBook.evalCondition(["tags": ["a", "b"]], ["tags.01": "b"]))
  }

  @Test func versionsOfNumbersAndEmptyValues() {
    #expect(GrowthBook.paddedVersionString(2) == "    2")
    #expect(GrowthBook.paddedVersionString("") == "    0")
    #expect(GrowthBook.paddedVersionString("v1.2.3+build") == "    1-    2-    3-~")
    #expect(GrowthBook.evalCondition(["v": 10], ["v": ["$vgt": "9"]]))
  }
}
