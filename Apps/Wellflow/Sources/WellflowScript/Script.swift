import FlowKit
import Foundation
import YAMLTree

/// A validated script, ready to run: every sub-script is loaded and every id checked.
public struct Script: Sendable {
  public var name: String
  public var file: String
  public var tags: [String]
  public var user: String
  /// Local start time (no zone) and the zone to read it in.
  public var start: DateComponents
  public var timeZone: TimeZone {
    didSet { calendar.timeZone = timeZone }
  }
  /// The user's calendar (Gregorian, in `timeZone`), made once per script.
  public private(set) var calendar: Calendar
  /// `start` read in `timeZone`.
  public var startDate: Date { calendar.date(from: start) ?? Date(timeIntervalSince1970: 0) }
  public var experiments: [String: String]
  /// The language screens show in (`locale:`); nil leaves it to the runner.
  public var locale: String?
  /// Context check-ins the script declares (`followUps:`).
  public var followUps: [FollowUpDeclaration]
  public var steps: [Step]

  public static let defaultUser = "user-1"

  public init(file: String) {
    self.name = ""
    self.file = file
    self.tags = []
    self.user = Self.defaultUser
    self.start = DateComponents(year: 2026, month: 1, day: 5, hour: 9, minute: 0, second: 0)
    self.timeZone = TimeZone(identifier: "UTC")!
    self.calendar = ManualClock.gregorian(in: timeZone)
    self.experiments = [:]
    self.locale = nil
    self.followUps = []
    self.steps = []
  }
}

public struct Step: Sendable {
  /// The command with its checked value.
  var command: any ScriptCommand
  public var position: SourcePosition
  public var label: String?
  public var isOptional: Bool
  /// How the step reads in a transcript (`tap continue`).
  public var summary: String

  /// How many steps running `steps` costs, repeats multiplied out (saturating) and every
  /// branch counted, an empty repeat body counted as one step a round: tools that run
  /// many scripts (the fuzzers) skip the costly ones.
  public static func workload(of steps: [Step]) -> Int {
    var total = 0
    for step in steps {
      let (sum, overflow) = total.addingReportingOverflow(step.command.workload)
      total = overflow ? .max : sum
    }
    return total
  }
}

/// One key of an `expect` (or `if`) mapping.
public enum Condition: Sendable {
  case screen(String)
  case alert(String?)
  case idle(Bool)
  /// A notification with this id is delivered and unopened; nil: none is.
  case notification(String?)
  case topFlow(String)
  case outcome(flow: String, FlowEnding.Outcome)
  case enabled(String)
  case disabled(String)
  case value(element: String, Matcher)
  case text(String)
  case data(query: String, Matcher)
}

/// An expected value: numbers match within 0.001, lists in any order, `null` matches
/// no value, `{min, max}` a range.
public enum Matcher: Sendable, Equatable, CustomStringConvertible {
  case none
  case bool(Bool)
  case number(Double)
  case text(String)
  case list([String])
  case range(min: Double?, max: Double?)

  public static let tolerance = 0.001

  public var description: String {
    switch self {
    case .none: "null"
    case .bool(let bool): "\(bool)"
    case .number(let number): formatNumber(number)
    case .text(let text): "\"\(text)\""
    case .list(let items): "[\(items.joined(separator: ", "))]"
    case .range(let min, let max):
      "{min: \(min.map(formatNumber) ?? "-"), max: \(max.map(formatNumber) ?? "-")}"
    }
  }

  /// The expectation with expected text given as its length, for values a person types.
  var freeText: String {
    if case .text(let text) = self { return describeFreeText(text) }
    return description
  }

  public func matches(_ value: QueryValue) -> Bool {
    switch (self, value) {
    case (.none, .none): true
    case (.bool(let expected), .bool(let actual)): expected == actual
    case (.number(let expected), .number(let actual)): abs(expected - actual) <= Self.tolerance
    case (.number(let expected), .text(let actual)): formatNumber(expected) == actual
    case (.text(let expected), .text(let actual)): expected == actual
    case (.range(let min, let max), .number(let actual)):
      actual >= (min ?? -.infinity) - Self.tolerance && actual <= (max ?? .infinity) + Self.tolerance
    case (.list(let expected), .list(let actual)): expected.sorted() == actual.sorted()
    default: false
    }
  }

  public func matches(_ value: ElementValue) -> Bool {
    matches(QueryValue(value))
  }
}

extension QueryValue {
  init(_ value: ElementValue) {
    switch value {
    case .none: self = .none
    case .text(let text): self = .text(text)
    case .number(let number): self = .number(number)
    case .bool(let bool): self = .bool(bool)
    case .list(let items): self = .list(items)
    }
  }
}
