import Foundation

/// A JSON value as a validator reads it: numbers and flags kept apart.
enum SchemaInstance: Decodable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([SchemaInstance])
  case object([String: SchemaInstance])

  init(from decoder: Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([SchemaInstance].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: SchemaInstance].self))
    }
  }

  static func parse(_ text: String) throws -> SchemaInstance {
    try JSONDecoder().decode(SchemaInstance.self, from: Data(text.utf8))
  }

  subscript(key: String) -> SchemaInstance? {
    if case .object(let pairs) = self { return pairs[key] }
    return nil
  }
}

/// The part of JSON Schema 2020-12 that `wellflow schema` uses, validated as the
/// specification says. A keyword outside that part is an error, so the schema cannot
/// come to rely on one this validator would silently pass.
struct JSONSchemaSubset {
  let root: SchemaInstance

  static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$defs"]
  static let keywords: Set<String> = [
    "$ref", "type", "enum", "const", "properties", "required", "additionalProperties", "propertyNames",
    "minProperties", "maxProperties", "dependentRequired", "items", "minItems", "maxItems", "uniqueItems",
    "anyOf", "not", "pattern", "minimum", "maximum",
  ]

  /// Every failure, as `path: why`; empty when `instance` is valid.
  func errors(_ instance: SchemaInstance) -> [String] {
    var found: [String] = []
    validate(instance, root, path: "$", into: &found)
    return found
  }

  private func resolve(_ reference: String) -> SchemaInstance? {
    guard reference.hasPrefix("#/") else { return nil }
    var node: SchemaInstance? = root
    for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
    return node
  }

  private func validate(
    _ instance: SchemaInstance, _ schema: SchemaInstance, path: String, into found: inout [String]
  ) {
    if case .bool(let allowed) = schema {
      if !allowed { found.append("\(path): nothing is allowed here") }
      return
    }
    guard case .object(let keywords) = schema else {
      found.append("\(path): the schema is not an object")
      return
    }
    for key in keywords.keys where !Self.keywords.contains(key) && !Self.annotations.contains(key) {
      found.append("\(path): unsupported keyword \(key)")
    }
    if case .string(let reference)? = keywords["$ref"] {
      if let target = resolve(reference) {
        validate(instance, target, path: path, into: &found)
      } else {
        found.append("\(path): unresolved \(reference)")
      }
    }
    if let type = keywords["type"] {
      let names: [String] =
        switch type {
        case .string(let name): [name]
        case .array(let items): items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        default: []
        }
      if !names.contains(where: { Self.has(instance, type: $0) }) {
        found.append("\(path): \(Self.describe(instance)) is not \(names.joined(separator: " or "))")
      }
    }
    if case .array(let values)? = keywords["enum"], !values.contains(where: { Self.equal($0, instance) }) {
      found.append("\(path): \(Self.describe(instance)) is not one of the enum")
    }
    if let value = keywords["const"], !Self.equal(value, instance) {
      found.append("\(path): \(Self.describe(instance)) is not the const")
    }
    if case .array(let branches)? = keywords["anyOf"] {
      let passes = branches.contains { branch in
        var inner: [String] = []
        validate(instance, branch, path: path, into: &inner)
        return inner.isEmpty
      }
      if !passes { found.append("\(path): \(Self.describe(instance)) matches none of anyOf") }
    }
    if let negated = keywords["not"] {
      var inner: [String] = []
      validate(instance, negated, path: path, into: &inner)
      if inner.isEmpty { found.append("\(path): \(Self.describe(instance)) matches not") }
    }
    switch instance {
    case .string(let text):
      if case .string(let pattern)? = keywords["pattern"] {
        let regex = try? NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        if regex?.firstMatch(in: text, range: range) == nil {
          found.append("\(path): '\(text)' does not match \(pattern)")
        }
      }
    case .number(let number):
      if case .number(let minimum)? = keywords["minimum"], number < minimum {
        found.append("\(path): \(number) < \(minimum)")
      }
      if case .number(let maximum)? = keywords["maximum"], number > maximum {
        found.append("\(path): \(number) > \(maximum)")
      }
    case .array(let items):
      if let itemSchema = keywords["items"] {
        for (index, item) in items.enumerated() {
          validate(item, itemSchema, path: "\(path)[\(index)]", into: &found)
        }
      }
      if case .number(let minimum)? = keywords["minItems"], Double(items.count) < minimum {
        found.append("\(path): fewer than \(minimum) items")
      }
      if case .number(let maximum)? = keywords["maxItems"], Double(items.count) > maximum {
        found.append("\(path): more than \(maximum) items")
      }
      if case .bool(true)? = keywords["uniqueItems"] {
        for (index, item) in items.enumerated()
        where items[..<index].contains(where: { Self.equal($0, item) }) {
          found.append("\(path)[\(index)]: a repeated item")
        }
      }
    case .object(let pairs):
      let properties: [String: SchemaInstance] =
        if case .object(let declared)? = keywords["properties"] { declared } else { [:] }
      for (key, value) in pairs.sorted(by: { $0.key < $1.key }) {
        if let propertySchema = properties[key] {
          validate(value, propertySchema, path: "\(path).\(key)", into: &found)
        } else if let additional = keywords["additionalProperties"] {
          if case .bool(false) = additional {
            found.append("\(path): unknown key '\(key)'")
          } else {
            validate(value, additional, path: "\(path).\(key)", into: &found)
          }
        }
        if let names = keywords["propertyNames"] {
          validate(.string(key), names, path: "\(path) key '\(key)'", into: &found)
        }
      }
      if case .array(let required)? = keywords["required"] {
        for case .string(let key) in required where pairs[key] == nil {
          found.append("\(path): missing '\(key)'")
        }
      }
      if case .number(let minimum)? = keywords["minProperties"], Double(pairs.count) < minimum {
        found.append("\(path): fewer than \(minimum) keys")
      }
      if case .number(let maximum)? = keywords["maxProperties"], Double(pairs.count) > maximum {
        found.append("\(path): more than \(maximum) keys")
      }
      if case .object(let dependencies)? = keywords["dependentRequired"] {
        for (key, needed) in dependencies where pairs[key] != nil {
          if case .array(let names) = needed {
            for case .string(let name) in names where pairs[name] == nil {
              found.append("\(path): '\(key)' needs '\(name)'")
            }
          }
        }
      }
    default: break
    }
  }

  static func has(_ instance: SchemaInstance, type: String) -> Bool {
    switch (type, instance) {
    case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array),
      ("object", .object):
      true
    case ("integer", .number(let number)): number.rounded() == number
    default: false
    }
  }

  /// Numbers equal by value (1 and 1.0), everything else structurally.
  static func equal(_ a: SchemaInstance, _ b: SchemaInstance) -> Bool { a == b }

  static func describe(_ instance: SchemaInstance) -> String {
    switch instance {
    case .null: "null"
    case .bool(let value): "\(value)"
    case .number(let value): "\(value)"
    case .string(let text): "'\(text)'"
    case .array: "a list"
    case .object: "a mapping"
    }
  }
}
