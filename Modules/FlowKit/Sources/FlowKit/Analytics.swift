import Foundation

/// A field value of an analytics event.
public enum EventValue: Sendable, Equatable, Codable {
  case string(String)
  case number(Double)
  case bool(Bool)

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else {
      self = .string(try container.decode(String.self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .bool(let value): try container.encode(value)
    }
  }
}

/// One analytics event: `ts`, `user`, `event`, plus fields (a flow's also carry `flow`
/// and `variant`). Notes and free text never go into events.
public struct AnalyticsEvent: Sendable, Equatable {
  public var ts: Date
  public var user: String
  public var event: String
  public var flow: String?
  public var variant: String?
  public var fields: [String: EventValue]

  public init(
    ts: Date, user: String, event: String, flow: String? = nil, variant: String? = nil,
    fields: [String: EventValue] = [:]
  ) {
    self.ts = ts
    self.user = user
    self.event = event
    self.flow = flow
    self.variant = variant
    self.fields = fields
  }
}

/// Where analytics events go: an NDJSON file in the app, memory in tests.
public protocol AnalyticsSink: Sendable {
  func record(_ event: AnalyticsEvent)
  /// False when events would be dropped, so hosts need not build them.
  var isRecording: Bool { get }
}

extension AnalyticsSink {
  public var isRecording: Bool { true }
}

public final class InMemoryAnalyticsSink: AnalyticsSink {
  private let storage = Locked<[AnalyticsEvent]>([])
  public init() {}
  public func record(_ event: AnalyticsEvent) { storage.withLock { $0.append(event) } }
  public var events: [AnalyticsEvent] { storage.current }
}

/// Drops events (benchmarks, hosts that do not measure).
public struct DiscardingAnalyticsSink: AnalyticsSink {
  public init() {}
  public func record(_ event: AnalyticsEvent) {}
  public var isRecording: Bool { false }
}
