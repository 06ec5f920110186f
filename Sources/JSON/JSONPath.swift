/// Where a value sits in a JSON document: `$.requests[2].method`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
  public enum Component: Sendable, Hashable {
    case key(String)
    case index(Int)
  }

  public var components: [Component]

  public init(_ components: [Component] = []) { self.components = components }

  public static let root = JSONPath()

  public func appending(_ key: String) -> JSONPath { appending(.key(key)) }
  public func appending(_ index: Int) -> JSONPath { appending(.index(index)) }

  private func appending(_ component: Component) -> JSONPath {
    var copy = components
    copy.append(component)  // one array, not a literal and a sum
    return JSONPath(copy)
  }

  /// `$.a.b[3]`, with keys that are not plain identifiers quoted: `$["x-y"]`.
  public var description: String {
    var text = "$"
    for component in components {
      switch component {
      case .index(let i): text += "[\(i)]"
      case .key(let k):
        let plain = !k.isEmpty && k.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
          && !(k.first?.isNumber ?? true)
        text += plain ? ".\(k)" : "[\(JSONSerializer.quote(k))]"
      }
    }
    return text
  }
}
