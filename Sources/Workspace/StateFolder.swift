import Digest
import Foundation
import RequestEngine

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
/// Nothing is created here (but a missing `.gitignore` in `checked`): the stores create their
/// folders when they first write, through `StateFiles` (mode 0700, never through a link).
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

  /// `url(forWorkspace:override:)`, refused when anything reqbench keeps in it is a symbolic link
  /// (`subfolders`, `files`), and for the default state folder when `.reqbench` or
  /// `.reqbench/NAME` is one: a workspace from elsewhere (a cloned repository) must not move
  /// reqbench's state, tokens captured by chains among it, to a place of its choosing, nor have
  /// it read, written or removed there. `--state-dir DIR` is the user's own choice: the folder
  /// itself is used as given, what is in it is checked the same way. A default state folder an
  /// earlier reqbench made without its `.gitignore` gets one (`StateFiles.ignoreInGit`).
  ///
  /// This is the check at the start of a command; every store refuses a link again when it
  /// makes, opens or lists its folder (`StateFiles`).
  public static func checked(forWorkspace file: URL, override: URL?) throws(StateFolderError) -> URL {
    let state = url(forWorkspace: file, override: override)
    var places = (subfolders + files).map { state.appendingPathComponent($0).path }
    if override == nil { places = [state.deletingLastPathComponent().path, state.path] + places }
    for place in places where StateFiles.isLink(place) {
      throw StateFolderError(message: "the state folder \(place) " + StateFiles.folderLink(place).message)
    }
    if override == nil, (try? StateFiles.existingFolder(state.path)) == true {
      StateFiles.ignoreInGit(state.path)
    }
    return state
  }

  /// The folders reqbench keeps in a state folder.
  public static let subfolders = ["history", "history-bodies", "cache", "chains", "downloads", "cookies", "oauth2"]
  /// The files it keeps beside them.
  public static let files = [
    "history.sqlite", "history.sqlite-wal", "history.sqlite-shm", "history.sqlite-journal", "cache.key", ".swept",
    StateFiles.ignoreFileName,
  ]

  /// Makes the state folder (mode 0700, with its `.gitignore`; `StateFiles.makeStateFolder`).
  public static func make(_ stateFolder: URL) throws(FileError) {
    do throws(StateFileError) {
      try StateFiles.makeStateFolder(stateFolder.path)
    } catch {
      throw FileError(error)
    }
  }

  /// Makes a folder of the state folder, `STATE/NAME` (mode 0700; `StateFiles.folder`), refused
  /// when it is a symbolic link.
  public static func makeFolder(_ folder: URL) throws(FileError) {
    do throws(StateFileError) {
      try StateFiles.folder(at: folder.path)
    } catch {
      throw FileError(error)
    }
  }

  /// The history folder inside a state folder: `STATE/history/`.
  public static func history(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("history", isDirectory: true)
  }

  /// `STATE/history-bodies`: response bodies of history entries too large for the database.
  public static func historyBodies(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("history-bodies", isDirectory: true)
  }

  /// `STATE/oauth2`: the OAuth 2.0 tokens (`OAuth2Tokens`).
  public static func oauth2(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("oauth2", isDirectory: true)
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
    do throws(StateFileError) {
      if let bytes = try StateFiles.read(url.path, limit: 4096), bytes.count == size { return bytes }
    } catch where error.kind == .link || error.kind == .notRegular {
      // A link would make the write below replace the file it names (anywhere).
      throw FileError(error)
    } catch {
      // Damaged (too large): made again.
    }
    var generator = SystemRandomNumberGenerator()
    let key = (0..<size).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    try make(stateFolder)
    try AtomicFile.write(key, to: url, permissions: StateFiles.fileMode, links: .refuse)
    do throws(StateFileError) {
      let written = try StateFiles.read(url.path, limit: 4096) ?? key
      return written.count == size ? written : key
    } catch {
      throw FileError(error)
    }
  }

  /// `STATE/cookies`: the cookie jars, one per environment (`CookieJars`).
  public static func cookies(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("cookies", isDirectory: true)
  }

  /// A name (a chain's, an environment's) as a file name of its own: percent-encoded but for
  /// letters, digits and `-_.`, a leading dot encoded too (no hidden file, no `..`). Always a
  /// name `StateFiles.isValidName` accepts: one whose encoding is longer than it allows is
  /// `%sha256-` and the name's digest (the encoder never writes `%s`).
  public static func fileName(for name: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-_.")
    let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    let fileName = encoded.hasPrefix(".") ? "%2E" + encoded.dropFirst() : encoded
    return StateFiles.isValidName(fileName) ? fileName : "%sha256-" + SHA256.hex(Array(name.utf8))
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
