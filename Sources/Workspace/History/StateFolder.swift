import Foundation

/// Where a workspace keeps what the app learns while it runs: history, the response cache,
/// partial downloads and chains' captured values. For `path/NAME.json` it is `path/.reqbench/NAME/`, unless the user names
/// another folder with `--state-dir DIR`.
///
/// ```swift
/// let file = URL(fileURLWithPath: "workspaces/demo.json")
/// let state = StateFolder.url(forWorkspace: file, override: nil)
/// // …/workspaces/.reqbench/demo/
/// let history = HistoryStore(folder: StateFolder.history(in: state))
/// ```
/// Nothing is created here: the stores create their folders when they first write.
public struct StateFolder {
  /// The state folder of the workspace file `file`: `override` when given, else
  /// `.reqbench/NAME/` beside the file, where NAME is the file's name without `.json`.
  public static func url(forWorkspace file: URL, override: URL?) -> URL {
    if let override { return override.standardizedFileURL }
    let workspace = file.standardizedFileURL
    var name = workspace.lastPathComponent
    if name.lowercased().hasSuffix(".json"), name.count > 5 { name.removeLast(5) }
    return workspace.deletingLastPathComponent()
      .appendingPathComponent(".reqbench", isDirectory: true)
      .appendingPathComponent(name, isDirectory: true)
  }

  /// `url(forWorkspace:override:)`, refused when the default state folder, or anything in its
  /// path the workspace's folder holds (`.reqbench`, `.reqbench/NAME`, its `history`, `cache`,
  /// `chains`, `downloads` and `cookies` and the history database), is a symbolic link: a workspace from elsewhere (a cloned
  /// repository) must not move reqbench's state, tokens captured by chains among it, to a place
  /// of its choosing. `--state-dir DIR` is the user's own choice and is used as given.
  public static func checked(forWorkspace file: URL, override: URL?) throws(StateFolderError) -> URL {
    let state = url(forWorkspace: file, override: override)
    guard override == nil else { return state }
    let dotFolder = state.deletingLastPathComponent()
    let places = [dotFolder, state] + [history(in: state), cache(in: state), chains(in: state), downloads(in: state), cookies(in: state)]
      + ["history.sqlite", "history.sqlite-wal", "history.sqlite-shm"].map { state.appendingPathComponent($0) }
    for place in places {
      var info = stat()
      if lstat(place.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
        throw StateFolderError(
          message: "the state folder \(place.path) is a symbolic link; reqbench keeps history, the cache, "
            + "downloads and captured values only in a real folder beside the workspace: remove the link "
            + "(reqbench creates the folder) or choose a folder with --state-dir DIR")
      }
    }
    return state
  }

  /// The history folder inside a state folder: `STATE/history/`.
  public static func history(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("history", isDirectory: true)
  }

  /// `STATE/cache`: the response cache.
  public static func cache(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("cache", isDirectory: true)
  }

  /// `STATE/chains`: what the last run of each chain captured (`ChainCaptures`).
  public static func chains(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("chains", isDirectory: true)
  }

  /// The key of the cache's keyed digests (`ResponseCache.digest`): 32 random bytes in
  /// `STATE/cache.key`, mode 0600, made on first use (written by `AtomicFile`; a file of another
  /// length is damaged and made again, its cache entries then missing once). Read back after a
  /// write, so two processes that start together agree on the one that won the rename.
  public static func cacheDigestKey(in stateFolder: URL) throws(FileError) -> [UInt8] {
    let url = stateFolder.appendingPathComponent("cache.key")
    let size = 32
    // A link would make the write below replace the file it names (anywhere).
    var info = stat()
    if lstat(url.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
      throw FileError(
        path: url.path, message: "is not a regular file (a link?); remove it, reqbench makes a new one",
        reason: "not a regular file")
    }
    if let bytes = try? FileAccess.read(url), bytes.count == size { return bytes }
    var generator = SystemRandomNumberGenerator()
    let key = (0..<size).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    try FileAccess.createDirectory(stateFolder)
    try AtomicFile.write(key, to: url, permissions: 0o600)
    let written = try FileAccess.read(url)
    return written.count == size ? written : key
  }

  /// `STATE/cookies`: the cookie jars, one per environment (`CookieJars`).
  public static func cookies(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("cookies", isDirectory: true)
  }

  /// A name (a chain's, an environment's) as a file name of its own: percent-encoded but for
  /// letters, digits and `-_.`, a leading dot encoded too (no hidden file, no `..`).
  public static func fileName(for name: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-_.")
    let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    return encoded.hasPrefix(".") ? "%2E" + encoded.dropFirst() : encoded
  }

  /// `STATE/downloads`: partial downloads and their resume state.
  public static func downloads(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("downloads", isDirectory: true)
  }
}

/// Why the state folder cannot be used.
public struct StateFolderError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}
