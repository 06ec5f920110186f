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

  /// `path` inside `folder` (the current directory when nil), checked, as a real path: every
  /// symbolic link in it followed. A link inside the folder that leads out of it (`data ->
  /// ../outside`, `key.pem -> /home/me/.ssh/id`) is refused like a `..` would be, so a workspace
  /// from elsewhere (a cloned repository holds symlinks as easily as files) cannot read or write
  /// outside its folder. A path whose end does not exist yet (a download target) is resolved as
  /// far as it exists.
  public static func resolve(_ path: String, in folder: URL?) throws(PathError) -> String {
    if let problem = problem(with: path) { throw PathError(message: problem) }
    let base = (folder ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL.path
    let realBase: String
    do {
      realBase = try realPath(base)
    } catch {
      throw PathError(message: "the workspace's folder \(JSONSerializer.quote(base)): \(error.message)")
    }
    let resolved: String
    do {
      resolved = try realPath(realBase + "/" + path)
    } catch {
      throw PathError(message: "\(JSONSerializer.quote(path)): \(error.message)")
    }
    guard isInside(resolved, realBase) else {
      throw PathError(
        message: "\(JSONSerializer.quote(path)) leads outside the workspace's folder through a symbolic link "
          + "(to \(JSONSerializer.quote(resolved))); keep files inside it")
    }
    return resolved
  }

  /// A file to upload (`body.file`, a multipart part): `resolve`d, and refused when it is a folder
  /// or not a regular file (a pipe or a device would never end). A missing file is the engine's
  /// to report when it is sent.
  public static func uploadSource(_ path: String, in folder: URL?) throws(PathError) -> String {
    let resolved = try resolve(path, in: folder)
    if let what = BodyStream.notAFile(resolved) {
      throw PathError(message: "\(JSONSerializer.quote(path)) is \(what); name a file to send")
    }
    return resolved
  }

  /// Whether `path` is `folder` or inside it (both real, absolute paths).
  static func isInside(_ path: String, _ folder: String) -> Bool {
    folder == "/" || path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
  }

  /// `path` (absolute) with every symbolic link followed, `.` and `..` applied to the real
  /// folders they are in; the components that do not exist are kept as written. Unlike
  /// `realpath(3)` it accepts a path whose end does not exist yet, and a dangling link is
  /// followed to where it points.
  static func realPath(_ path: String) throws(PathError) -> String {
    var pending = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init).reversed() as [String]
    var resolved: [String] = []
    var links = 0
    while let component = pending.popLast() {
      switch component {
      case ".": continue
      case "..":
        if !resolved.isEmpty { resolved.removeLast() }
        continue
      default: break
      }
      let candidate = "/" + (resolved + [component]).joined(separator: "/")
      var info = stat()
      guard lstat(candidate, &info) == 0 else {
        // It does not exist (yet): taken as written.
        resolved.append(component)
        continue
      }
      guard info.st_mode & S_IFMT == S_IFLNK else {
        resolved.append(component)
        continue
      }
      links += 1
      if links > 40 { throw PathError(message: "too many levels of symbolic links") }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = readlink(candidate, &buffer, Int(PATH_MAX))
      guard length >= 0 else { throw PathError(message: "cannot read the symbolic link \(JSONSerializer.quote(candidate))") }
      let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if target.hasPrefix("/") { resolved = [] }
      pending.append(contentsOf: target.split(separator: "/", omittingEmptySubsequences: true).map(String.init).reversed())
    }
    return "/" + resolved.joined(separator: "/")
  }

  /// A download's target: `to` inside `folder`; a folder (an existing one, or `to` ending in
  /// `/`) gets the URL's last path component, percent-decoded (`download` when that is empty or
  /// not a plain name).
  public static func downloadTarget(_ to: String, in folder: URL?, url: String) throws(PathError) -> String {
    let resolved = try resolve(to, in: folder)
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory)
    guard to.hasSuffix("/") || (exists && isDirectory.boolValue) else { return resolved }
    // The file in the folder may itself be a link leading out: resolved and checked too.
    return try resolve((to.hasSuffix("/") ? to : to + "/") + fileName(from: url), in: folder)
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
