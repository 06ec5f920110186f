import Foundation
import JSON

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A workspace file on disk: opening it (a missing file is a new, empty workspace), saving it
/// without ever writing over another program's change, and telling whether it changed.
///
/// ```swift
/// var file = WorkspaceFile(URL(fileURLWithPath: "api.json"))
/// var workspace = try file.load()      // missing: an empty workspace named "api", file.isNew
/// _ = try workspace.addRequest(RequestTemplate(name: "get-users", url: "users"))
/// try file.save(workspace)             // creates api.json; throws .changedOnDisk if someone
///                                      // else wrote it since load()
/// switch file.checkDisk(hasUnsavedEdits: false) {   // after the watcher says it moved
/// case .reload: workspace = try file.load()
/// default: break
/// }
/// ```
/// The workspace itself stays a value (`Workspace`); this type holds only what the file was when
/// it was last read or written (`loaded`), which every save and check compares with the disk.
public struct WorkspaceFile: Sendable {
  /// The file as the user named it (errors show `url.relativePath`).
  public let url: URL
  /// The file as it was when it was last loaded or saved (`.missing` before a new file's first
  /// save).
  public private(set) var loaded: DiskState

  public init(_ url: URL) {
    self.url = url
    self.loaded = .missing
  }

  /// True until the first save creates the file (the file did not exist when it was loaded).
  public var isNew: Bool { loaded == .missing }

  /// Reads the file (again), remembering what it was. A missing file is a new, empty workspace
  /// named after the file (`api` for `api.json`) whose first save creates it; a file that cannot
  /// be read or does not load is an error, and `loaded` stays what it was.
  public mutating func load() throws(WorkspaceError) -> Workspace {
    let read: FileAccess.StampedRead
    do {
      read = try FileAccess.readStamped(url)
    } catch {
      throw WorkspaceError.unreadable(url, reason: error.reason)
    }
    guard let (bytes, stamp) = read.contents else {
      loaded = .missing
      return Workspace.new(at: url)
    }
    var workspace = try Workspace.parse(bytes, file: url.relativePath)
    workspace.folder = Workspace.folder(of: url)
    loaded = .present(stamp)
    return workspace
  }

  /// What to do about the file on disk now (see `FileChange.decide`). When only its metadata
  /// changed (`touch`, a checkout of the same content), the new metadata is remembered so the
  /// next check needs no hash.
  public mutating func checkDisk(hasUnsavedEdits: Bool) -> FileChange {
    let now = DiskState.current(of: url, previous: loaded)
    let change = FileChange.decide(loaded: loaded, now: now, hasUnsavedEdits: hasUnsavedEdits)
    if change == .unchanged { loaded = now }
    return change
  }

  /// Writes `workspace` atomically (`AtomicFile`). Unless `overwrite`, the file must still be
  /// what was loaded or last saved: when another program changed it (or created it, for a new
  /// workspace), nothing is written and the error is `.changedOnDisk` — ask the user to reload
  /// (dropping the edits), overwrite, or cancel. A file deleted since is written again. The
  /// first save of a new workspace creates its folder when that is missing too.
  public mutating func save(_ workspace: Workspace, overwrite: Bool = false) throws(WorkspaceSaveError) {
    let now = DiskState.current(of: url, previous: loaded)
    if !overwrite, now != .missing,
      FileChange.decide(loaded: loaded, now: now, hasUnsavedEdits: true) == .conflict
    {
      throw .changedOnDisk(path: url.relativePath)
    }
    let bytes: [UInt8]
    do {
      bytes = try workspace.checkedEncoding(file: url.relativePath)
    } catch {
      throw .wouldNotLoad(error)
    }
    do {
      if now == .missing { try FileAccess.createDirectory(url.deletingLastPathComponent()) }
      try AtomicFile.write(bytes, to: url)
    } catch {
      throw .file(error)
    }
    // The stamp of what was just written: its metadata from the disk, its content the bytes
    // (reading the file back could take in a change another program made in between).
    var info = stat()
    if stat(url.path, &info) == 0 {
      loaded = .present(FileStamp(info, content: bytes))
    } else {
      loaded = .unreadable(FileAccess.describe(errno))
    }
  }
}

extension WorkspaceFile {
  /// `workspace` (the edits made here since the file was loaded or saved) merged with what
  /// another program wrote to the file since (`JSONMerge`: each side's changes kept, request by
  /// request and value by value), laid out as the file on disk is. The file on disk becomes what
  /// the next save compares with; nothing is written. Throws, changing nothing, when both sides
  /// changed one value differently (each named), or the file is gone or does not load.
  public mutating func merge(_ workspace: Workspace) throws(WorkspaceMergeError) -> Workspace {
    let read: FileAccess.StampedRead
    do {
      read = try FileAccess.readStamped(url)
    } catch {
      throw .unreadable(error.description)
    }
    guard let (theirBytes, theirStamp) = read.contents else { throw .deleted }
    var base: JSONValue?
    if case .present(let stamp) = loaded { base = try? JSONParser.parse(stamp.content, duplicateKeys: .refused) }
    let theirs: JSONValue
    do {
      theirs = try JSONParser.parse(theirBytes, duplicateKeys: .refused)
    } catch {
      throw .unreadable("\(url.relativePath):\(error.description)")
    }
    // Mine as the value a save writes (`Workspace.json`), not its text parsed back.
    switch JSONMerge.merge(base: base, mine: workspace.json, theirs: theirs) {
    case .conflicts(let paths):
      throw .conflicts(paths)
    case .merged(let value):
      let bytes = JSONTextEditor.write(value, over: theirBytes) ?? Array((JSONSerializer.pretty(value) + "\n").utf8)
      var merged: Workspace
      do {
        merged = try Workspace.parse(bytes, file: url.relativePath)
      } catch {
        throw .wouldNotLoad(error.description)
      }
      merged.folder = workspace.folder
      loaded = .present(theirStamp)
      return merged
    }
  }
}

/// Why `WorkspaceFile.merge` merged nothing.
public enum WorkspaceMergeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Both sides changed these values differently (`requests[users/get].url`).
  case conflicts([String])
  /// The file is gone: there is nothing to merge with.
  case deleted
  /// The file cannot be read or is not JSON: why.
  case unreadable(String)
  /// The merged text would not load (two edits each valid, invalid together): why.
  case wouldNotLoad(String)

  public var description: String {
    switch self {
    case .conflicts(let paths):
      let shown = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? " and \(paths.count - 3) more" : "")
      return "both changed \(shown)"
    case .deleted: return "the file is gone (Ctrl-S writes it again)"
    case .unreadable(let reason): return reason
    case .wouldNotLoad(let reason): return "the merged file would not load (\(reason))"
    }
  }
}

/// Why `WorkspaceFile.save` wrote nothing.
public enum WorkspaceSaveError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Another program changed the file since it was loaded or last saved; nothing was written.
  case changedOnDisk(path: String)
  /// The file (or its folder) could not be written.
  case file(FileError)
  /// The text would not load again (`Workspace.checkedEncoding`); nothing was written.
  case wouldNotLoad(WorkspaceError)

  public var description: String {
    switch self {
    case .changedOnDisk(let path):
      "\(path): changed on disk since it was loaded; reload it (dropping these edits) or overwrite it"
    case .file(let error): error.description
    case .wouldNotLoad(let error):
      "nothing was written: the new text would not load again (\(error.description)); change what was added"
    }
  }
}

/// What a file was on disk at one moment.
public enum DiskState: Sendable, Equatable {
  /// There was no file.
  case missing
  /// A file, with its identity, metadata and content hash.
  case present(FileStamp)
  /// Something that cannot be read as the file (no permission, a directory): the system's reason.
  case unreadable(String)

  /// The state of `url` now. When the file's identity, size and times equal `previous`'s, its
  /// content is taken from there (the file is not read again); otherwise it is read.
  public static func current(of url: URL, previous: DiskState = .missing) -> DiskState {
    var info = stat()
    guard stat(url.path, &info) == 0 else {
      return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable(FileAccess.describe(errno))
    }
    if case .present(let old) = previous, old.hasSameMetadata(as: FileStamp(info, content: old.content)) {
      return previous
    }
    do {
      guard let (_, stamp) = try FileAccess.readStamped(url).contents else { return .missing }
      return .present(stamp)
    } catch {
      return .unreadable(error.reason)
    }
  }
}

/// A file's identity (device and inode: an editor that replaces the file by rename makes a new
/// one), size, modification and status-change times, and its content.
///
/// The content is the bytes themselves, not a digest of them: they are the array the workspace
/// read (`Workspace.sourceText` holds the same one, so it costs no copy) or wrote, and comparing
/// two contents, needed only when the metadata changed, is one pass over both. (A SHA-256 of a
/// 1 MB workspace was a fifth of the CPU time of opening it.)
public struct FileStamp: Sendable, Equatable, Hashable {
  public var device: UInt64
  public var inode: UInt64
  public var size: Int64
  /// `st_mtim` and `st_ctim`, in nanoseconds since 1970.
  public var modified: Int64
  public var statusChanged: Int64
  public var content: [UInt8]

  public init(
    device: UInt64, inode: UInt64, size: Int64, modified: Int64, statusChanged: Int64, content: [UInt8]
  ) {
    self.device = device
    self.inode = inode
    self.size = size
    self.modified = modified
    self.statusChanged = statusChanged
    self.content = content
  }

  init(_ info: stat, content: [UInt8]) {
    func nanoseconds(_ time: timespec) -> Int64 {
      Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ Int64(time.tv_nsec)
    }
    self.init(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modified: nanoseconds(info.st_mtim), statusChanged: nanoseconds(info.st_ctim), content: content)
  }

  /// Equal stamps have equal metadata: the content is left out of the hash (one pass over it
  /// per hash would cost what the digest did).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(device)
    hasher.combine(inode)
    hasher.combine(size)
    hasher.combine(modified)
    hasher.combine(statusChanged)
  }

  /// The same file, not written since: identity, size and both times equal. (A write changes
  /// the status-change time, which no program can set back.)
  public func hasSameMetadata(as other: FileStamp) -> Bool {
    device == other.device && inode == other.inode && size == other.size
      && modified == other.modified && statusChanged == other.statusChanged
  }

  /// The same bytes, whichever file holds them.
  public func hasSameContent(as other: FileStamp) -> Bool {
    size == other.size && content == other.content
  }
}

/// What the app does about a workspace file that may have changed on disk (a `git pull`, an
/// editor's save).
public enum FileChange: Sendable, Equatable {
  /// The same content as loaded (perhaps touched, or replaced by an identical file).
  case unchanged
  /// Changed (or created) on disk and nothing is unsaved: read it again, keeping the selection
  /// by request name.
  case reload
  /// Changed on disk while there are unsaved edits: say so at once; a save must ask (reload and
  /// drop the edits / overwrite / cancel).
  case conflict
  /// The file is gone: keep the workspace shown; a save writes it again.
  case deleted

  /// The decision, from what the file was when loaded (or last saved), what it is now, and
  /// whether the workspace has edits that are not saved.
  public static func decide(loaded: DiskState, now: DiskState, hasUnsavedEdits: Bool) -> FileChange {
    switch (loaded, now) {
    case (.missing, .missing): return .unchanged
    case (.present(let old), .present(let new)) where old.hasSameContent(as: new): return .unchanged
    case (.unreadable(let old), .unreadable(let new)) where old == new: return .unchanged
    case (_, .missing): return .deleted
    default: return hasUnsavedEdits ? .conflict : .reload
    }
  }
}

extension WorkspaceError {
  /// `FILE: cannot read the workspace: REASON`.
  static func unreadable(_ url: URL, reason: String) -> WorkspaceError {
    WorkspaceError(
      kind: .unreadable, file: url.relativePath,
      problems: [.init(location: nil, message: "cannot read the workspace: \(reason)")])
  }
}

extension Workspace {
  /// A new, empty workspace for a file that does not exist yet: named after the file (`api`
  /// for `api.json`), its files relative to the file's folder.
  static func new(at url: URL) -> Workspace {
    var workspace = Workspace(name: defaultName(for: url.relativePath))
    workspace.folder = folder(of: url)
    return workspace
  }

  static func folder(of url: URL) -> URL {
    url.absoluteURL.deletingLastPathComponent().standardizedFileURL
  }
}

extension FileAccess {
  /// A file's bytes and its stamp, read through one descriptor so they belong together; nil
  /// contents when there is no file.
  struct StampedRead {
    var contents: (bytes: [UInt8], stamp: FileStamp)?
  }

  static func readStamped(_ url: URL) throws(FileError) -> StampedRead {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT || errno == ENOTDIR { return StampedRead(contents: nil) }
      let reason = describe(errno)
      throw FileError(path: url.relativePath, message: "cannot read: \(reason)", reason: reason)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let reason = describe(errno)
      throw FileError(path: url.relativePath, message: "cannot read: \(reason)", reason: reason)
    }
    let size = info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
    let bytes = try read(descriptor: fd, path: url.relativePath, expectedSize: size)
    return StampedRead(contents: (bytes, FileStamp(info, content: bytes)))
  }

  /// Creates `folder` and the folders above it that are missing.
  static func createDirectory(_ folder: URL) throws(FileError) {
    try createDirectory(folder, attributes: [:])
  }

  private static func createDirectory(_ folder: URL, attributes: [FileAttributeKey: Any]) throws(FileError) {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue {
      return
    }
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: attributes)
    } catch {
      let reason = (error as NSError).localizedFailureReason ?? "\(error.localizedDescription)"
      throw FileError(
        path: folder.relativePath, message: "cannot create the folder: \(reason)", reason: reason)
    }
  }
}
