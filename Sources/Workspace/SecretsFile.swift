import Foundation
import RequestEngine

/// The secrets beside a workspace: `demo.secrets.json` for `demo.json`, a flat JSON object of
/// names and values, mode 0600, listed in the folder's `.gitignore` (the app writes both).
/// `{{secret.NAME}}` reads it when `REQBENCH_SECRET_NAME` is not set.
///
/// It must be a regular file of its own, private to its owner, as ssh requires of its keys: a
/// symbolic link (a cloned repository may ship one, to a file it publishes), a FIFO or a device
/// (never waited on), or a file others may read or write (`chmod 600` fixes it, the message says
/// so) is refused, read and written alike.
///
/// ```swift
/// var secrets = try SecretsFile.load(forWorkspace: workspaceURL)
/// secrets.set("token", "s3cr3t")
/// try secrets.save()
/// ```
public struct SecretsFile: Sendable, Equatable {
  /// Where it is saved; nil for an in-memory set (tests, no workspace file).
  public var url: URL?
  private var object: JSONObject

  public init(url: URL? = nil, values: [(String, String)] = []) {
    self.url = url
    self.object = JSONObject(values.map { (key: $0.0, value: .string($0.1)) })
  }

  /// `path/NAME.secrets.json` for `path/NAME.json`.
  public static func url(forWorkspace file: URL) -> URL {
    var name = file.lastPathComponent
    if name.hasSuffix(".json") { name.removeLast(5) }
    return file.deletingLastPathComponent().appendingPathComponent(name + ".secrets.json")
  }

  /// Reads the secrets file of a workspace; a missing file is an empty set. A malformed file is
  /// an error with its line and column (and is never overwritten by `save` of this value); so is
  /// one that is not a private regular file (`refusal`).
  public static func load(forWorkspace file: URL) throws(WorkspaceError) -> SecretsFile {
    let url = url(forWorkspace: file)
    func unreadable(_ message: String) -> WorkspaceError {
      WorkspaceError(kind: .unreadable, file: url.relativePath, problems: [.init(location: nil, message: message)])
    }
    let opened: (descriptor: Int32, info: stat)?
    do throws(StateFileError) {
      opened = try StateFiles.openRegular(url.path)
    } catch {
      throw unreadable(refusal(error, url: url))
    }
    guard let (fd, info) = opened else { return SecretsFile(url: url) }
    defer { close(fd) }
    if let loose = looseMode(info.st_mode, path: url.relativePath) { throw unreadable(loose) }
    let bytes: [UInt8]
    do {
      bytes = try FileAccess.read(descriptor: fd, path: url.relativePath)
    } catch {
      throw unreadable("cannot read the secrets file: \(error.reason)")
    }
    let document: JSONDocument
    do {
      document = try JSONParser.parseDocument(bytes, duplicateKeys: .refused)
    } catch {
      throw WorkspaceError(
        kind: .syntax, file: url.relativePath,
        problems: [.init(location: error.location, message: error.message)])
    }
    guard case .object(let object) = document.root else {
      throw WorkspaceError(
        kind: .invalid, file: url.relativePath,
        problems: [
          .init(
            location: document.location(of: .root),
            message: "expected an object of secret names and values: {\"token\": \"…\"}")
        ])
    }
    var problems: [WorkspaceError.Problem] = []
    for member in object.members where member.value.stringValue == nil {
      problems.append(
        .init(
          location: document.location(of: JSONPath.root.appending(member.key)),
          message: "\(member.key): expected a string, found \(member.value.typeName)"))
    }
    guard problems.isEmpty else {
      throw WorkspaceError(kind: .invalid, file: url.relativePath, problems: problems)
    }
    var secrets = SecretsFile(url: url)
    secrets.object = object
    return secrets
  }

  public var names: [String] { object.keys }

  public func value(of name: String) -> String? { object[name]?.stringValue }

  /// Sets a secret; nil removes it.
  public mutating func set(_ name: String, _ value: String?) {
    object[name] = value.map { .string($0) }
  }

  /// Writes the file atomically with mode 0600, after making sure the folder's `.gitignore` lists
  /// it and its temporary files (so the secret is ignored by git before it is on disk), and
  /// removes temporary files a killed earlier write left (`.NAME.secrets.json.tmp-…`). Never
  /// through a symbolic link, nor over a FIFO or a device.
  public func save() throws(FileError) {
    guard let url else {
      throw FileError(path: "", message: "these secrets have no file to be saved to", reason: "no file")
    }
    var info = stat()
    if lstat(url.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
      let error =
        info.st_mode & S_IFMT == S_IFLNK
        ? StateFiles.fileLink(url.path) : StateFiles.notARegularFile(url.path, info)
      throw FileError(path: url.relativePath, message: SecretsFile.refusal(error, url: url), reason: error.reason)
    }
    try SecretsFile.ignoreInGit(url)
    SecretsFile.removeLeftovers(of: url)
    try AtomicFile.write(
      Array((JSONSerializer.pretty(.object(object)) + "\n").utf8), to: url, permissions: StateFiles.fileMode, links: .refuse)
  }

  /// Why a secrets file that is not a regular file is refused, and what to do.
  static func refusal(_ error: StateFileError, url: URL) -> String {
    switch error.kind {
    case .link:
      return "is a symbolic link; secrets are read and written only in a regular file of its own (through a link "
        + "they could land in a file that is published or shared): replace the link with the file itself"
    case .notRegular:
      return error.message.replacingOccurrences(of: "nothing is read from it", with: "secrets are kept in a regular file")
    default:
      return "cannot read the secrets file: \(error.reason)"
    }
  }

  /// What is wrong with the secrets file `path` of mode `mode` (group or others may read or
  /// write it), with the command that fixes it; nil when it is private.
  static func looseMode(_ mode: mode_t, path: String) -> String? {
    guard mode & 0o077 != 0 else { return nil }
    let octal = String(mode & 0o777, radix: 8)
    return "is accessible by others (mode 0\(octal)); secrets must be private to you, as ssh requires of its keys: "
      + "run `chmod 600 \(quotedForShell(path))`"
  }

  /// `path` as one shell word: as it is when it holds nothing the shell reads, else in single
  /// quotes.
  static func quotedForShell(_ path: String) -> String {
    let plain = path.unicodeScalars.allSatisfy { scalar in
      scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "/._-+,:@%".unicodeScalars.contains(scalar))
    }
    return plain && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// The `.gitignore` line that covers the temporary files of every secrets file's writes.
  static let temporaryPattern = ".*.secrets.json.tmp-*"

  /// Removes `.NAME.tmp-*` beside `file`: what a write killed before its rename leaves.
  static func removeLeftovers(of file: URL) {
    let folder = file.deletingLastPathComponent()
    let prefix = "." + file.lastPathComponent + ".tmp-"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
    for name in names where name.hasPrefix(prefix) {
      unlink(folder.appendingPathComponent(name).path)
    }
  }

  /// Adds `NAME.secrets.json` and the temporary files' pattern to the `.gitignore` beside it
  /// unless lines already cover them.
  static func ignoreInGit(_ file: URL) throws(FileError) {
    let ignore = file.deletingLastPathComponent().appendingPathComponent(".gitignore")
    let name = file.lastPathComponent
    var text = ""
    var lines: [String] = []
    if FileManager.default.fileExists(atPath: ignore.path) {
      text = String(decoding: try FileAccess.read(ignore), as: UTF8.self)
      lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    }
    var missing: [String] = []
    if !(lines.contains(name) || lines.contains("/" + name) || lines.contains("*.secrets.json")) {
      missing.append(name)
    }
    if !lines.contains(temporaryPattern) { missing.append(temporaryPattern) }
    if missing.isEmpty { return }
    if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
    text += "# secrets of reqbench workspaces: never commit them\n" + missing.map { $0 + "\n" }.joined()
    try AtomicFile.write(Array(text.utf8), to: ignore)
  }
}
