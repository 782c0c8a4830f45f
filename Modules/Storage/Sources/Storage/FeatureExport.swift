import FlowKit
import Foundation

/// What `wellflow export` writes of one feature: its row type, its columns and how its
/// entries are read from the app's database. A feature's storage adapter module
/// registers it (`FeatureStorage.export`); the export iterates the registrations in the
/// app's order and names no feature.
public struct FeatureExport: Sendable {
  /// One value of an exported row, written alike in CSV and JSON.
  public enum Value: Sendable, Equatable {
    case text(String)
    case integer(Int)
    case decimal(Double)
    /// `;`-separated in CSV, an array in JSON.
    case list([String])
    /// Empty in CSV, `null` in JSON.
    case none
  }

  /// One exported entry: when it happened and its columns' values.
  public struct Row: Sendable, Equatable {
    public var date: Date
    public var values: [String: Value]

    public init(date: Date, values: [String: Value]) {
      self.date = date
      self.values = values
    }
  }

  /// The `type` column of its rows (`mood`, `journal`).
  public let type: String
  /// Its columns after `type` and `date`, in order; a column another feature exports too
  /// is one column.
  public let columns: [String]
  /// The user's entries within the interval, in the feature's order.
  public let read: @Sendable (WellflowDatabase, _ userID: String, DateInterval) async throws -> [Row]

  public init(
    type: String, columns: [String],
    read: @escaping @Sendable (WellflowDatabase, _ userID: String, DateInterval) async throws -> [Row]
  ) {
    self.type = type
    self.columns = columns
    self.read = read
  }
}
