import Foundation
import Testing

@testable import ProgressBackend

/// The backend's own reading and writing of dates and rows, which replaced Foundation's
/// on the write path: it must accept, refuse and read exactly what Foundation did.
@Suite struct BackendParsingTests {
  @Test func daysAreTheCalendarsDays() {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    for year in [1, 1500, 1582, 1583, 1600, 1700, 1900, 2000, 2024, 2026, 2100, 2400, 9999] {
      for month in 0...13 {
        for day in [0, 1, 28, 29, 30, 31, 32] {
          let text = String(format: "%04d-%02d-%02d", year, month, day)
          var expected = false
          if (1...12).contains(month), day >= 1,
            let date = calendar.date(from: DateComponents(year: year, month: month, day: day))
          {
            expected =
              calendar.component(.day, from: date) == day && calendar.component(.month, from: date) == month
          }
          #expect(WireDate.isDay(text) == expected, "\(text)")
        }
      }
    }
    #expect(WireDate.day(of: "2026-03-02T23:30:00+01:00") == "2026-03-02")
    #expect(WireDate.day(of: "2026-03-02T08:00:00.123Z") == "2026-03-02")
    #expect(WireDate.day(of: "2026-03-02 08:00") == "2026-03-02")
    for text in [
      "2026-03-02T24:00:00Z", "2026-03-02T1٣:00:00Z", "２026-03-02", "2026-03-02T08:00:00Z\u{301}",
      "2026-3-02",
    ] {
      #expect(WireDate.day(of: text) == nil, "\(text)")
    }
  }

  @Test func aWrittenRowReadsBackAsItsValues() throws {
    let input = ProgressInput(
      type: "mood_score", quantity: 7, loggedAt: "2026-03-02T08:00:00Z", date: "2026-03-02",
      notes: "tea \"hot\" \\ \n\t\u{1} 😀 / é", entryID: "e-1")
    let object = try #require(
      try JSONSerialization.jsonObject(with: WireJSON.progressJSON(id: "r-1", input, entryID: "e-1"))
        as? [String: Any])
    let data = try #require(object["data"] as? [String: Any])
    #expect(data["id"] as? String == "r-1" && data["entry_id"] as? String == "e-1")
    #expect(data["notes"] as? String == input.notes && data["quantity"] as? Double == 7)
    #expect(data["date"] as? String == "2026-03-02" && data["logged_at"] as? String == input.loggedAt)
    var plain = input
    plain.notes = nil
    let bare = try #require(
      try JSONSerialization.jsonObject(with: WireJSON.progressJSON(id: "r-2", plain, entryID: nil))
        as? [String: Any])
    #expect((bare["data"] as? [String: Any])?["notes"] is NSNull)
    #expect((bare["data"] as? [String: Any])?["entry_id"] == nil)
  }

  @Test func aBatchsResultsCarryEachAnswerBesideItsStatus() throws {
    let answers = [
      BackendResponse(status: 201, body: Data(#"{"data":{"id":"a"}}"#.utf8)),
      BackendResponse(status: 204, body: Data()),
      BackendResponse(
        status: 400, body: Data(#" {"error":{"code":"validation_failed","message":"no"}} "#.utf8)),
      BackendResponse(status: 200, body: Data("{ }".utf8)),
    ]
    let object = try #require(
      try JSONSerialization.jsonObject(with: WireJSON.batchBody(answers)) as? [String: Any])
    let results = try #require((object["data"] as? [String: Any])?["results"] as? [[String: Any]])
    #expect(results.map { $0["status"] as? Int } == [201, 204, 400, 200])
    #expect((results[0]["data"] as? [String: Any])?["id"] as? String == "a")
    #expect(results[1].count == 1 && results[3].count == 1)
    #expect((results[2]["error"] as? [String: Any])?["code"] as? String == "validation_failed")
    #expect(try JSONSerialization.jsonObject(with: WireJSON.batchBody([])) as? [String: Any] != nil)
  }
}
