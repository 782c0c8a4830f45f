import Foundation
import ProgressBackend
import Testing

/// `wellflow token USER --ttl T` reads its lifetime here: digits with a unit, finite,
/// at most ten years; anything else is refused, never trapped on.
@Suite("Token lifetimes")
struct TokenLifetimeTests {
  @Test func lifetimesPeopleWriteAreRead() {
    #expect(JWT.parseTTL("90s") == 90)
    #expect(JWT.parseTTL("30m") == 1_800)
    #expect(JWT.parseTTL("1h") == 3_600)
    #expect(JWT.parseTTL("1.5h") == 5_400)
    #expect(JWT.parseTTL("7d") == 604_800)
    #expect(JWT.parseTTL("3660d") == JWT.maxTTL)
  }

  @Test func lifetimesThatAreNoNumberOrTooLongAreRefused() {
    for text in ["1e15d", "infd", "nand", "3661d", "-1h", "0s", "1e3s", "0x10s", "h", "", "5", "5w", "1.d"] {
      #expect(JWT.parseTTL(text) == nil, "\(text)")
    }
  }
}
