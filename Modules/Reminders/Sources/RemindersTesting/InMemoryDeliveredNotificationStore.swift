import FlowKit
import Foundation
import Reminders

/// Delivered notifications in memory, for tests of the reminders.
public final class InMemoryDeliveredNotificationStore: DeliveredNotificationStore {
  private struct State {
    var all: [DeliveredNotification] = []
    /// Indexes into `all` of the ones not opened, in order.
    var unopened: [Int] = []
  }

  private let state = Locked(State())

  public init() {}

  public func append(_ notification: DeliveredNotification) {
    state.withLock { state in
      if !notification.opened { state.unopened.append(state.all.count) }
      state.all.append(notification)
    }
  }

  public func counts() -> DeliveryCounts {
    state.withLock { DeliveryCounts(delivered: $0.all.count, unopened: $0.unopened.count) }
  }

  public func unopened() -> [DeliveredNotification] {
    state.withLock { state in state.unopened.map { state.all[$0] } }
  }

  public func all() -> [DeliveredNotification] { state.withLock { $0.all } }

  public func markOpened(_ notification: DeliveredNotification) {
    state.withLock { state in
      guard
        let position = state.unopened.firstIndex(where: {
          state.all[$0].id == notification.id && state.all[$0].date == notification.date
        })
      else { return }
      state.all[state.unopened[position]].opened = true
      state.unopened.remove(at: position)
    }
  }
}
