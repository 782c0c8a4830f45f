import FlowKit
import Foundation

public enum ExploreError: Error, CustomStringConvertible {
  case host(HostError)
  case registry(RegistryError)
  case appDidNotStart(String)
  case invalidDepth(Int)

  public var description: String {
    switch self {
    case .host(let error): error.description
    case .registry(let error): error.description
    case .appDidNotStart(let message): "the app could not start: \(message)"
    case .invalidDepth(let depth): "depth must be at least 1, got \(depth)"
    }
  }
}
