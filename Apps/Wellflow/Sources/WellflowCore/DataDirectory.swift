import FlowKit
import YAMLTree

/// `--data-dir` of `run` and `export`: a folder name the file system reads up to its
/// first NUL (`data\0x` would be `data`), so one holding a control character is refused.
enum DataDirectory {
  static func problem(with path: String) -> String? {
    ControlCharacter.first(in: path).map { "--data-dir '\(clipped(path))' holds \($0)" }
  }
}
