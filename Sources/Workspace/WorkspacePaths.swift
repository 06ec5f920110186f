import Foundation
import RequestEngine

/// Files a workspace names (upload sources, download targets) are relative to its folder and
/// never leave it: absolute paths, `~` and `..` are refused.
public enum WorkspacePaths {
  /// What is wrong with `path` as a workspace-relative path, or nil when it is fine. Parts that
  /// are still `{{templates}}` are checked again once filled in.
  public static func problem(with path: String) -> String? {
    if path.isEmpty { return "the path is empty; write one relative to the workspace's folder" }
    if path.hasPrefix("/") || path.hasPrefix("~") || path.hasPrefix("\\") {
      return "\(JSONSerializer.quote(path)) is absolute; paths are relative to the workspace's folder"
    }
    if path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." }) {
      return "\(JSONSerializer.quote(path)) leaves the workspace's folder (\"..\"); keep files inside it"
    }
    if path.contains("\0") { return "the path contains a NUL byte" }
    return nil
  }

  /// `path` inside `folder` (the current directory when nil), checked.
  public static func resolve(_ path: String, in folder: URL?) throws(PathError) -> String {
    if let problem = problem(with: path) { throw PathError(message: problem) }
    let base = folder ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    return base.appendingPathComponent(path).standardizedFileURL.path
  }

  /// A download's target: `to` inside `folder`; a folder (an existing one, or `to` ending in
  /// `/`) gets the URL's last path component, percent-decoded (`download` when that is empty or
  /// not a plain name).
  public static func downloadTarget(_ to: String, in folder: URL?, url: String) throws(PathError) -> String {
    let resolved = try resolve(to, in: folder)
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory)
    guard to.hasSuffix("/") || (exists && isDirectory.boolValue) else { return resolved }
    return resolved + "/" + fileName(from: url)
  }

  /// The URL's last path component, percent-decoded; `download` for an empty name, `.`, `..`
  /// or one that would make a path of its own.
  public static func fileName(from url: String) -> String {
    var path = URLResolver.split(url).path
    while path.hasSuffix("/") { path.removeLast() }
    let last = path.split(separator: "/").last.map(String.init) ?? ""
    let decoded = last.removingPercentEncoding ?? last
    if decoded.isEmpty || decoded == "." || decoded == ".." || decoded.contains("/") || decoded.contains("\0")
      || decoded.contains("\\")
    {
      return "download"
    }
    return decoded
  }

  public struct PathError: Error, Sendable {
    public let message: String
  }
}
