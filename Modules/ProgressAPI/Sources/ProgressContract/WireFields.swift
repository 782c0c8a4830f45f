/// The members of a progress write's body (`ProgressInput` in the document).
public enum ProgressInputField: String, CodingKey, CaseIterable, Sendable {
  case type, quantity, notes
  case loggedAt = "logged_at"
  case entryID = "entry_id"
}

/// The members of a journal write's body (`JournalInput`).
public enum JournalInputField: String, CodingKey, CaseIterable, Sendable {
  case createdAt = "created_at"
  case curriculumID = "curriculum_id"
  case secondaryCurriculumID = "secondary_curriculum_id"
  case strategyID = "strategy_id"
  case initiatedBy = "initiated_by"
}

/// The members of an events request (`EventsInput`).
public enum EventsInputField: String, CodingKey, CaseIterable, Sendable {
  case events

  /// The most events one request carries (`maxItems`).
  public static let maxEvents = 1_000
}

/// The members every event has (`Event`); the rest are its own fields, as in an events
/// file. `user` is the token's user, whatever the app sent.
public enum EventField: String, CodingKey, CaseIterable, Sendable {
  case ts, event, user
}

/// The members of an events answer (`EventsAccepted`).
public enum EventsAnswerField: String, CodingKey, CaseIterable, Sendable {
  case accepted
}

/// The members of a batch request (`BatchRequest`) and of its items (`BatchItem`).
public enum BatchField: String, CodingKey, CaseIterable, Sendable {
  case items
}

public enum BatchItemField: String, CodingKey, CaseIterable, Sendable {
  case idempotencyKey = "idempotency_key"
  case method, id, body
  /// The generic resource the item writes (a `ResourceName`); without it, a progress write.
  case resource
}

/// The members of one batch result.
public enum BatchResultField: String, CodingKey, CaseIterable, Sendable {
  case status, data, error
}

/// The error envelope, `{"error":{"message","code"}}`: every refusal.
public struct ErrorEnvelope: Codable, Sendable, Hashable {
  public struct Detail: Codable, Sendable, Hashable {
    public var message: String
    public var code: String

    public init(message: String, code: String) {
      self.message = message
      self.code = code
    }
  }

  public var error: Detail

  public init(message: String, code: String) {
    error = Detail(message: message, code: code)
  }
}

extension ErrorEnvelope: JSONWritable {
  public func appendJSON(to bytes: inout [UInt8]) {
    bytes += #"{"error":{"code":"#.utf8
    JSONText.appendString(error.code, to: &bytes)
    bytes += #","message":"#.utf8
    JSONText.appendString(error.message, to: &bytes)
    bytes += "}}".utf8
  }
}

// A field interpolated into a message reads as its wire name.
extension ProgressInputField { public var description: String { rawValue } }
extension JournalInputField { public var description: String { rawValue } }
extension BatchField { public var description: String { rawValue } }
extension BatchItemField { public var description: String { rawValue } }
extension BatchResultField { public var description: String { rawValue } }
extension EventsInputField { public var description: String { rawValue } }
extension EventField { public var description: String { rawValue } }

/// The progress types the API accepts (`ProgressInput.type`).
public enum ProgressType {
  /// A mood score, 1…10.
  public static let moodScore = "mood_score"
}
