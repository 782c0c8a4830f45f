import FlowKit

/// A day of the mood domain: the shared calendar day (`FlowKit.CalendarDay`).
public typealias MoodDay = CalendarDay
