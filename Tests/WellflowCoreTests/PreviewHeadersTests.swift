import Foundation
import Testing

@testable import WellflowCore
@testable import WellflowPreview

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension PreviewServerTests {
  /// No other site may frame the preview (its page acts on clicks), and the page may run
  /// only its own inline script and style, named by their SHA-256.
  @Test func everyAnswerForbidsFramingAndScriptFromElsewhere() async throws {
    try await withServer { url in
      for path in ["", "api/state", "api/script", "no-such-page"] {
        let (_, response) = try await URLSession.shared.data(
          for: URLRequest(url: url.appendingPathComponent(path), timeoutInterval: 600))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.value(forHTTPHeaderField: "X-Frame-Options") == "DENY", "\(path)")
        #expect(
          http.value(forHTTPHeaderField: "Content-Security-Policy") == PreviewPage.contentSecurityPolicy)
      }
      let (data, _) = try await URLSession.shared.data(for: URLRequest(url: url, timeoutInterval: 600))
      let page = String(decoding: data, as: UTF8.self)
      func inline(_ tag: String) throws -> String {
        let open = try #require(page.range(of: "<\(tag)>"))
        let close = try #require(page.range(of: "</\(tag)>", range: open.upperBound..<page.endIndex))
        return String(page[open.upperBound..<close.lowerBound])
      }
      #expect(
        PreviewPage.contentSecurityPolicy
          == "default-src 'none'; script-src 'sha256-\(PreviewPage.sha256Base64(try inline("script")))'; "
          + "style-src 'sha256-\(PreviewPage.sha256Base64(try inline("style")))'; connect-src 'self'; "
          + "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
      // One script and one style sheet, and no inline handler or style a hash would not cover.
      #expect(page.components(separatedBy: "<script").count == 2)
      #expect(page.components(separatedBy: "<style").count == 2)
      #expect(page.range(of: #" on[a-z]+="#, options: .regularExpression) == nil)
      #expect(page.range(of: #" style="#) == nil)
    }
    // The hash is SHA-256 in base64, as browsers compute it.
    #expect(PreviewPage.sha256Base64("") == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
    #expect(PreviewPage.sha256Base64("abc") == "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
  }
}
