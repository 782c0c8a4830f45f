import Foundation
import ProgressContract

/// The server's answers as bytes, written by the contract's types.
enum WireJSON {
  /// `{"data":{…}}` for a row just written with `input`: what reading it back gives.
  static func progressJSON(id: String, _ input: ProgressInput, entryID: String?) -> Data {
    Data(
      JSONText.data(
        ProgressRecord(
          id: id, type: input.type, quantity: Double(input.quantity), date: input.date, notes: input.notes,
          loggedAt: input.loggedAt, entryID: entryID)))
  }

  /// `{"data":{"results":[…]}}`: each item's answer body beside its status.
  static func batchBody(_ answers: [BackendResponse]) -> Data {
    BatchAnswer.encode(answers.map { ($0.status, $0.body) })
  }

  /// `{"data":{"accepted":n}}`: how many events were stored.
  static func eventsAccepted(_ count: Int) -> Data {
    Data(
      JSONText.data(capacity: 32) { bytes in
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendString(EventsAnswerField.accepted.rawValue, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        JSONText.appendInteger(count, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
      })
  }

  /// `{"data": value}`.
  static func data(_ value: some JSONWritable) -> Data {
    Data(JSONText.data(value))
  }
}
