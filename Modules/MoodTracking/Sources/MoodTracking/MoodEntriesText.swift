import Foundation

/// Every text the `mood.entries` and `mood.edit` screens show, in one place so they can
/// be translated together. Ids never appear here.
public enum MoodEntriesText {
  public static let listTitle = "Your entries"
  public static let listEmpty = "No moods in this range yet."
  public static let listPrompt = "Pick an entry to edit or delete it."
  public static let loading = "Loading…"
  public static let range = "Range"
  public static let entry = "Entry"
  public static let edit = "Edit"
  public static let delete = "Delete"
  public static let done = "Done"
  public static let rangeLabels = ["7d": "7 days", "30d": "30 days", "90d": "90 days", "1y": "1 year"]

  /// An entry's option label: date, time, score and emotion.
  public static func entryLabel(day: String, time: String, score: Int, emotion: String?) -> String {
    "\(day) \(time) · \(score)/10 · \(emotion ?? "No emotion")"
  }

  public static let confirmDeleteTitle = "Delete this entry?"
  public static func confirmDeleteMessage(_ entry: String) -> String {
    "\(entry) will be removed from this device, from Health and from your account."
  }
  public static let confirmDeleteButton = "Delete"
  public static let cancelButton = "Cancel"

  public static let editTitle = "Edit your mood"
  public static func editMessage(day: String, time: String) -> String { "Logged \(day) at \(time)" }
  public static let score = "Mood"
  public static let labels = "Feelings"
  public static let associations = "What it's about"
  public static let notes = "Notes"
  public static let save = "Save"

  public static let errorTitle = "Couldn't change your mood"
  public static let ok = "OK"
}
