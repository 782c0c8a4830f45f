// The domain is its own module (which storage, sync and reminders import without the
// flows); whoever imports the mood flows gets it too.
@_exported import MoodTrackingDomain
