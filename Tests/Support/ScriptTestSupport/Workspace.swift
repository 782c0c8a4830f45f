import Foundation

/// A fresh folder of scripts, removed when the test is done.
package final class Workspace: Sendable {
  package let url: URL

  package init() {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("wellflow-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  package var path: String { url.path }

  package func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  @discardableResult
  package func write(_ name: String, _ text: String) -> String {
    let file = url.appendingPathComponent(name)
    try? FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try? Data(text.utf8).write(to: file)
    return file.path
  }

  /// Lines with this folder's path left out, so they read `s.yaml:3:5: …`.
  package func relative(_ lines: [String]) -> [String] {
    lines.map { $0.replacingOccurrences(of: path + "/", with: "") }
  }
}
