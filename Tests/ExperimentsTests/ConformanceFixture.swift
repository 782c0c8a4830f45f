import Experiments
import Foundation
import StrictJSON
import Testing

/// GrowthBook's cross-SDK cases, spec 0.8.0. The source of truth is
/// `shared/conformance/growthbook/cases.json` beside the repo; a byte-identical copy
/// (sha256 1422cb1b…d953886) is committed under `Fixtures/` so a clone that has no
/// `shared/` beside it (CI) still runs every case. `copyMatchesTheSharedFile` keeps
/// the copy honest wherever both exist.
enum ConformanceFixture {
  struct LoadError: Error, CustomStringConvertible {
    var description: String
  }

  static let committedCopy = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/growthbook-cases.json")

  static let sharedFile: URL = {
    var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while directory.path != "/" {
      if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
        break
      }
      directory.deleteLastPathComponent()
    }
    return directory.deletingLastPathComponent()
      .appendingPathComponent("shared/conformance/growthbook/cases.json")
  }()

  static let url: URL =
    FileManager.default.fileExists(atPath: sharedFile.path) ? sharedFile : committedCopy

  /// The whole file, or the reason it could not be read.
  static let groups: Result<[String: JSONValue], LoadError> = {
    do {
      let data = try Data(contentsOf: url)
      return .success(try JSONDecoder().decode([String: JSONValue].self, from: data))
    } catch {
      return .failure(LoadError(description: "cannot load \(url.path): \(error)"))
    }
  }()

  /// The cases of one group; empty when the file is unreadable (a separate test fails then).
  static func cases(_ group: String) -> [[JSONValue]] {
    guard case .success(let all) = groups, case .array(let list)? = all[group] else { return [] }
    return list.map { item in
      if case .array(let fields) = item { return fields }
      return []
    }
  }
}

/// One named case; the name is what the test report shows.
struct NamedCase: Sendable, CustomTestStringConvertible {
  var name: String
  var fields: [JSONValue]
  var testDescription: String { name }
}

struct CaseFormatError: Error, CustomStringConvertible {
  var description: String
}

extension JSONValue {
  var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  var numberValue: Double? {
    if case .number(let value) = self { return value }
    return nil
  }

  var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  var arrayValue: [JSONValue]? {
    if case .array(let value) = self { return value }
    return nil
  }

  var objectValue: [String: JSONValue]? {
    if case .object(let value) = self { return value }
    return nil
  }

  func decoded<T: Decodable>(as type: T.Type) throws -> T {
    try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
  }
}

/// Reads a range list `[[start, end], …]`.
func bucketRanges(_ value: JSONValue) throws -> [BucketRange] {
  try value.decoded(as: [BucketRange].self)
}

/// Floors to 1e-8, the precision the shared cases are written with.
func floored(_ value: Double) -> Double {
  (value * 1e8).rounded(.down) / 1e8
}
