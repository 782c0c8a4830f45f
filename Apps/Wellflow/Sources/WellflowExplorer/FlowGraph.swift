import FlowKit
import Foundation

/// A flow's screen graph as the explorer found it: nodes are screen ids, `screen + alert`
/// while an alert is up, and the endings `completed` and `cancelled`; edges carry the
/// action (`tap continue`). Nodes keep the order they were first reached in (the
/// endings last), edges are grouped by their source in that order: the same flow
/// always prints the same graph.
public struct FlowGraph: Sendable, Equatable {
  public struct Edge: Sendable, Hashable {
    public var from: String
    public var action: String
    public var to: String

    public init(from: String, action: String, to: String) {
      self.from = from
      self.action = action
      self.to = to
    }
  }

  public static let endings = ["completed", "cancelled"]

  public private(set) var nodes: [String] = []
  public private(set) var edges: [Edge] = []
  private var known: Set<String> = []
  private var knownEdges: Set<Edge> = []
  /// The edges drawn for a choice between two nodes, by `from`, element and `to`.
  private var choiceEdges: [Edge: ChoiceEdge] = [:]

  /// The options of one choice that lead from one node to another, drawn as one edge.
  private struct ChoiceEdge: Sendable, Equatable {
    var index: Int
    /// The first class found: its representative and how many options were alike.
    var representative: String
    var alike: Int
    /// Every option seen leading along this edge, in any state.
    var options: Set<String>
  }

  public init() {}

  mutating func add(node: String) {
    if known.insert(node).inserted { nodes.append(node) }
  }

  /// Adds an edge unless the same one is known.
  mutating func add(edge: Edge) {
    add(node: edge.from)
    add(node: edge.to)
    if knownEdges.insert(edge).inserted { edges.append(edge) }
  }

  /// Adds a class of options of `element` (the first one, `representative`, stands for
  /// all). Every option of a choice that leads from one node to the same other node is
  /// one edge, labelled with the first class found: `select emotion calm (+37 alike)`.
  /// Options that the explorer told apart in some state, yet lead along the same edge,
  /// are counted as more: `select layer 0 (+3 more)`.
  mutating func add(
    from: String, element: String, representative: UserAction, options: [String], to: String
  ) {
    add(node: from)
    add(node: to)
    let key = Edge(from: from, action: "\u{0}select \(element)", to: to)
    if var known = choiceEdges[key] {
      known.options.formUnion(options)
      choiceEdges[key] = known
      return
    }
    choiceEdges[key] = ChoiceEdge(
      index: edges.count, representative: representative.command, alike: options.count - 1,
      options: Set(options))
    edges.append(Edge(from: from, action: representative.command, to: to))
  }

  /// Labels the choices, puts the endings last and groups edges by source, keeping the
  /// order of discovery.
  mutating func finish() {
    for choice in choiceEdges.values {
      let more = choice.options.count - 1 - choice.alike
      let counts = (choice.alike > 0 ? ["+\(choice.alike) alike"] : []) + (more > 0 ? ["+\(more) more"] : [])
      edges[choice.index].action =
        choice.representative + (counts.isEmpty ? "" : " (\(counts.joined(separator: ", ")))")
    }
    choiceEdges = [:]
    nodes = nodes.filter { !Self.endings.contains($0) } + Self.endings.filter { known.contains($0) }
    let order = Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1, $0) })
    edges = edges.enumerated().sorted { left, right in
      let (a, b) = (order[left.element.from] ?? 0, order[right.element.from] ?? 0)
      return a != b ? a < b : left.offset < right.offset
    }.map(\.element)
  }

  public static func isEnding(_ node: String) -> Bool { endings.contains(node) }

  /// Mermaid flowchart text (paste into a Markdown file or mermaid.live).
  public func mermaid() -> String {
    let ids = nodeIDs
    var lines = ["flowchart TD"]
    for node in nodes {
      let label = escapeMermaid(node)
      if Self.isEnding(node) {
        lines.append("  \(ids[node]!)([\"\(label)\"])")
      } else if node.contains(" + ") {
        lines.append("  \(ids[node]!){{\"\(label)\"}}")
      } else {
        lines.append("  \(ids[node]!)[\"\(label)\"]")
      }
    }
    for edge in edges {
      lines.append("  \(ids[edge.from]!) -->|\"\(escapeMermaid(edge.action))\"| \(ids[edge.to]!)")
    }
    return lines.joined(separator: "\n")
  }

  /// Graphviz DOT text (`dot -Tsvg`).
  public func dot(name: String) -> String {
    var lines = ["digraph \(quoteDot(name)) {", "  rankdir=TB;", "  node [shape=box];"]
    for node in nodes {
      if Self.isEnding(node) {
        lines.append("  \(quoteDot(node)) [shape=doublecircle];")
      } else if node.contains(" + ") {
        lines.append("  \(quoteDot(node)) [shape=box, style=rounded];")
      } else {
        lines.append("  \(quoteDot(node));")
      }
    }
    for edge in edges {
      lines.append("  \(quoteDot(edge.from)) -> \(quoteDot(edge.to)) [label=\(quoteDot(edge.action))];")
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }

  /// Mermaid ids are kept short and free of the dots and words its parser reads.
  private var nodeIDs: [String: String] {
    Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1, "n\($0)") })
  }

  private func escapeMermaid(_ text: String) -> String {
    text.replacingOccurrences(of: "\"", with: "#quot;")
  }

  private func quoteDot(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      + "\""
  }
}
