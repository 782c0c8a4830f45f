import FlowKit
import Reminders
import Storage

/// What the reminders bring to the app's storage: the delivered notifications' table, and
/// the scheduler over the user's settings and those deliveries, on the host's clock.
public enum RemindersStorage: StoringFeature {
  public static var storage: FeatureStorage { feature }

  public static let feature = FeatureStorage(
    name: "Reminders", migrations: SQLiteDeliveredNotificationStore.migrations,
    sqliteAdapters: { services, database, context in
      services[NotificationSchedulerKey.self] = LocalNotificationScheduler(
        store: context.keyValueStore,
        deliveries: SQLiteDeliveredNotificationStore(database: database, userID: context.userID),
        clock: context.clock)
    })
}
