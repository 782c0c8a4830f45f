import Foundation

/// A notification a feature delivers, and what opening it does: what a script's
/// `open: <id>` taps and an app's notification handler calls. The runner knows
/// notifications only through these.
public struct NotificationDefinition: Sendable {
  public let id: String
  /// The flow opening it presents (for listings; `open` does the presenting).
  public let flow: String
  /// When each delivered, unopened notification of this id was delivered, oldest first:
  /// what a script's `expect: {notification: …}` reads.
  public let unopened: @MainActor @Sendable (FlowHost) async throws -> [Date]
  /// Opens the latest delivered, unopened notification of this id on a running host;
  /// throws, in words a person can act on, when there is none.
  public let open: @MainActor @Sendable (FlowHost) async throws -> Void

  public init(
    id: String, flow: String, unopened: @escaping @MainActor @Sendable (FlowHost) async throws -> [Date],
    open: @escaping @MainActor @Sendable (FlowHost) async throws -> Void
  ) {
    self.id = id
    self.flow = flow
    self.unopened = unopened
    self.open = open
  }
}

/// Why a notification could not be opened by id.
public struct UnknownNotification: Error, Equatable, CustomStringConvertible {
  public var id: String
  public var known: [String]

  public init(id: String, known: [String]) {
    self.id = id
    self.known = known
  }

  public var description: String {
    "unknown notification '\(id)' (notifications: \(known.joined(separator: ", ")))"
  }
}

extension FlowHost {
  /// Opens the notification a feature registered under `id` (a script's `open:`).
  public func openNotification(_ id: String) async throws {
    guard let notification = registry.notification(id) else {
      throw UnknownNotification(id: id, known: registry.notifications.map(\.id).sorted())
    }
    try await notification.open(self)
  }

  /// Every registered notification delivered and not opened, by id, in the order they
  /// were delivered.
  public func unopenedNotifications() async throws -> [String] {
    var delivered: [(date: Date, id: String)] = []
    for notification in registry.notifications {
      delivered += try await notification.unopened(self).map { ($0, notification.id) }
    }
    // Stable: notifications delivered at the same moment keep the registry's order.
    return delivered.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
      .map(\.element.id)
  }
}

/// One attribute experiment targeting may read about the user (GrowthBook conditions,
/// an experiment's `targeting:`), read from what the feature keeps for the user; nil
/// when the user has none yet.
public struct TargetingAttribute: Sendable {
  public let name: String
  public let read: @Sendable (HostEnvironment) -> EventValue?

  public init(_ name: String, read: @escaping @Sendable (HostEnvironment) -> EventValue?) {
    self.name = name
    self.read = read
  }
}
