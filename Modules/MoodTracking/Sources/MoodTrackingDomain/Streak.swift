import Foundation

/// The current streak from a user's days with entries: consecutive days ending today,
/// or yesterday when today has none yet.
public func currentStreak(days: Set<MoodDay>, today: MoodDay) -> Int {
  var day = days.contains(today) ? today : today.adding(days: -1)
  var streak = 0
  while days.contains(day) {
    streak += 1
    day = day.adding(days: -1)
  }
  return streak
}
