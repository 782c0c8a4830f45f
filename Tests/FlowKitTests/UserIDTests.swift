import FlowKit
import Testing

/// The one rule for a text that names an account: whole, short, no control character.
@Suite("User ids")
struct UserIDTests {
  @Test func idsPeopleUseAreAccounts() {
    for id in ["alice", "user-1", "a", "Zoë", "björn@example.com", "名前", String(repeating: "x", count: 256)] {
      #expect(UserID.problem(with: id) == nil, "\(id)")
    }
  }

  @Test func emptyLongAndControlCharactersAreRefusedWithWhereTheyAre() {
    #expect(UserID.problem(with: "") == "is empty")
    #expect(UserID.problem(with: String(repeating: "x", count: 257)) == "has 257 characters")
    // Counted in Unicode scalars: combining marks do not hide length.
    #expect(UserID.problem(with: "e" + String(repeating: "\u{301}", count: 256)) == "has 257 characters")
    #expect(
      UserID.problem(with: "alice\u{0}anything") == "holds the control character U+0000 at character 6")
    #expect(UserID.problem(with: "\u{1F}x") == "holds the control character U+001F at character 1")
    #expect(UserID.problem(with: "bob\u{7F}") == "holds the control character U+007F at character 4")
    #expect(UserID.problem(with: "é\u{85}") == "holds the control character U+0085 at character 2")
    #expect(UserID.problem(with: "a\u{9F}") == "holds the control character U+009F at character 2")
    #expect(UserID.problem(with: "tab\there") == "holds the control character U+0009 at character 4")
    #expect(UserID.problem(with: "\u{A0}") == nil)
    #expect(UserID.rule == "a user id is 1 to 256 characters, none of them a control character")
  }
}
