import Foundation
import Testing

/// The plugin guide (FlowKit.docc/PluginGuide.md) shows the code of `Guide/`: each Swift block on the page,
/// but those marked `<!-- sketch -->`, must be that code word for word, so the guide
/// always compiles and passes its tests.
@Suite("Guide: the page shows the tested code")
struct GuideDocumentationTests {
  private static let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The page's Swift blocks, each with whether it is a sketch.
  private static func blocks(of page: String) -> [(code: String, isSketch: Bool)] {
    var blocks: [(String, Bool)] = []
    var current: [String]?
    var previous = ""
    var isSketch = false
    for line in page.components(separatedBy: "\n") {
      if var lines = current {
        if line == "```" {
          blocks.append((lines.joined(separator: "\n"), isSketch))
          current = nil
        } else {
          lines.append(line)
          current = lines
        }
      } else if line == "```swift" {
        isSketch = previous == "<!-- sketch -->"
        current = []
      }
      if !line.isEmpty { previous = line }
    }
    return blocks
  }

  @Test func everySwiftBlockIsTheGuidesCode() throws {
    let page = try String(
      contentsOf: Self.repository.appendingPathComponent(
        "Modules/FlowKit/Sources/FlowKit/FlowKit.docc/PluginGuide.md"), encoding: .utf8)
    let folder = Self.repository.appendingPathComponent("Tests/FlowKitTestingTests/Guide")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    let sources = try names.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
    let checked = Self.blocks(of: page).filter { !$0.isSketch }.map(\.code)
    #expect(checked.count >= 7, "the page shows the feature, the step and their tests")
    for code in checked {
      #expect(sources.contains { $0.contains(code) }, "not in Tests/FlowKitTestingTests/Guide:\n\(code)")
    }
    // And the other way: every guide file is on the page whole (its header comment aside).
    let shown = checked.joined(separator: "\n\n")
    for (name, source) in zip(names, sources) {
      let body = source.components(separatedBy: "\n").drop { $0.hasPrefix("//") || $0.isEmpty }
        .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(shown.contains(body), "the page leaves out part of Guide/\(name)")
    }
  }
}
