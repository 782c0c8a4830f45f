import FlowKit
import Foundation

/// App-wide settings kept per user.
public enum AppKeys {
  /// When the app was first opened for the user (ISO 8601), written at that first launch.
  public static let firstLaunch = "app.firstLaunch"

  static let timestampFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: false)

  /// Writes the first-launch time unless the user already has one.
  public static func recordFirstLaunch(in store: any KeyValueStore, at now: Date) throws {
    guard try store.string(forKey: firstLaunch) == nil else { return }
    try store.set(Timestamp.string(from: now), forKey: firstLaunch)
  }

  /// The first-launch time, nil when none was recorded or it cannot be read.
  public static func firstLaunchDate(in store: any KeyValueStore) -> Date? {
    guard let text = try? store.string(forKey: firstLaunch) else { return nil }
    return try? Date(text, strategy: timestampFormat)
  }
}
