import Foundation

/// " (did you mean 'continue'?)" when a known name is one or two edits away.
package func suggestion(_ name: String, among candidates: [String]) -> String {
  // Ids are short; a long name is no typo of one, and comparing it would cost its length
  // times every candidate's.
  guard name.count <= 64 else { return "" }
  let limit = max(2, name.count / 4)
  let scored = candidates.filter { abs($0.count - name.count) <= limit }.map { ($0, editDistance(name, $0)) }
    .filter { $0.1 <= limit }
  guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return "" }
  return " (did you mean '\(clipped(best.0))'?)"
}

package func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  for i in 1...a.count {
    var current = [i] + Array(repeating: 0, count: b.count)
    for j in 1...b.count {
      current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.count]
}
