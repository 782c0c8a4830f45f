import Foundation
import Testing

/// What an app links is a library product, and iOS has no `Process`: no target of a library
/// product starts one. Starting processes (`--jobs` workers, `serve`'s helpers) belongs to
/// the `wellflow` executable and the commands' glue it alone links.
@Suite struct LibraryProductsTests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static let manifest: String =
    (try? String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""

  /// Every `.library(name: …, targets: [...])` of the manifest: its targets.
  static func libraryTargets(_ manifest: String) -> [String: [String]] {
    var products: [String: [String]] = [:]
    var rest = Substring(manifest)
    while let start = rest.range(of: ".library(") {
      rest = rest[start.upperBound...]
      guard let end = rest.range(of: "])") else { break }
      let call = rest[..<end.upperBound]
      let quoted = call.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
        .filter { $0.offset % 2 == 1 }.map { String($0.element) }
      if let name = quoted.first { products[name] = Array(quoted.dropFirst()) }
      rest = rest[end.upperBound...]
    }
    return products
  }

  /// The folder a target's sources are in: its `path:` in the manifest.
  static func path(of target: String, in manifest: String) -> String? {
    for call in manifest.components(separatedBy: ".target(").dropFirst()
    where call.drop(while: { $0 == " " || $0 == "\n" }).hasPrefix("name: \"\(target)\"") {
      guard let path = call.components(separatedBy: "path: \"").dropFirst().first else { return nil }
      return String(path.prefix { $0 != "\"" })
    }
    return nil
  }

  /// Lines of the Swift files under `folder` that make or hold a `Process`.
  static func processUses(under folder: String) throws -> [String] {
    let directory = root.appendingPathComponent(folder)
    var uses: [String] = []
    for path in try FileManager.default.subpathsOfDirectory(atPath: directory.path)
    where path.hasSuffix(".swift") {
      let source = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
      for line in source.split(separator: "\n")
      where !line.drop(while: { $0 == " " }).hasPrefix("//")
        && (line.contains("Process()") || line.contains("[Process]") || line.contains(": Process "))
      {
        uses.append("\(folder)/\(path): \(line.trimmingCharacters(in: .whitespaces))")
      }
    }
    return uses
  }

  @Test func theManifestIsReadAsSwiftPMReadsIt() throws {
    let products = Self.libraryTargets(Self.manifest)
    #expect(products["FlowKit"] == ["FlowKit"])
    #expect(products["WellflowScript"] == ["WellflowScript", "YAMLTree"])
    #expect(Self.path(of: "WellflowCore", in: Self.manifest) == "Apps/Wellflow/Sources/WellflowCore")
    // The detector sees the one place that starts processes outside the executable.
    #expect(try !Self.processUses(under: "Apps/Wellflow/Sources/WellflowCore").isEmpty)
  }

  @Test func noLibraryProductStartsAProcess() throws {
    let products = Self.libraryTargets(Self.manifest)
    #expect(products.count >= 20, "\(products.keys.sorted())")
    var uses: [String] = []
    for (product, targets) in products.sorted(by: { $0.key < $1.key }) {
      for target in targets {
        let folder = try #require(Self.path(of: target, in: Self.manifest), "no path for \(target)")
        uses += try Self.processUses(under: folder).map { "\(product): \($0)" }
      }
    }
    #expect(uses.isEmpty, "\(uses)")
  }
}
