import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one way reqbench makes, opens, lists and names what is in a workspace's state folder
/// (`.reqbench/NAME/`: history, its bodies, the response cache, partial downloads, cookie jars,
/// OAuth 2.0 tokens, chains' captured values), and the secrets file beside the workspace, which
/// holds the same kind of things.
///
/// - Names: a name that becomes a path (a history entry's key, a cache entry's key and
///   generation, a download's key, a token file's key, an environment's or a chain's encoded
///   name) goes through `path(_:in:suffix:)`, which checks it with `isValidName`: one path
///   component of letters, digits and `-_.%`, not starting with a dot. A name read back from a
///   file or a database that fails is damage: its record is skipped, and nothing outside its
///   folder is read, written or deleted.
/// - Folders: `makeStateFolder` and `folder(_:in:)` make the state folder, the folders above it
///   that are missing and its subfolders with mode 0700 whatever the umask; the state folder
///   they make gets a `.gitignore` holding `*`, so git never stages it. A subfolder that is a
///   symbolic link (or not a folder) is refused, never followed; `list` reads a folder the same
///   way.
/// - Files: `open` adds `O_NOFOLLOW` (a link where a file belongs fails, `ELOOP`) and
///   `O_CLOEXEC`; `openRegular` and `read` open a regular file only: a link, a FIFO or a device
///   is refused at once, never read through or waited on; `read` is bounded.
///
/// The state folder's own path is followed: `StateFolder.checked` refuses a default one
/// (`.reqbench`, `.reqbench/NAME`, or a folder in it) that is a link before a command uses it,
/// and `--state-dir DIR` is the user's choice.
public enum StateFiles {
  /// Mode of every folder reqbench makes for its state: responses, cookies and tokens are
  /// private.
  public static let folderMode: mode_t = 0o700
  /// Mode of every file in it.
  public static let fileMode: mode_t = 0o600
  /// The state folder's own `.gitignore`, which ignores everything beside it (itself too), as a
  /// Python virtual environment's does.
  public static let ignoreFileName = ".gitignore"
  static let ignoreText = "# reqbench's state (history, cache, cookies, tokens): never committed\n*\n"
  /// The longest name `isValidName` accepts, in UTF-8 bytes (a file name may have 255; this
  /// leaves room for the suffixes, `.body`, `.json`, `env-…txt`).
  public static let maximumNameBytes = 200

  // MARK: - Names

  /// Whether `name` may become one path component in the state folder: 1 to 200 UTF-8 bytes of
  /// ASCII letters and digits, `-`, `_`, `.` and `%` (and letters and digits of other scripts,
  /// which `StateFolder.fileName(for:)` keeps), not starting with a dot (no `.`, `..`, hidden
  /// or temporary name). `/`, NUL, spaces and control characters are refused.
  public static func isValidName(_ name: String) -> Bool {
    let bytes = name.utf8
    guard let first = bytes.first, first != UInt8(ascii: "."), bytes.count <= maximumNameBytes else { return false }
    if bytes.allSatisfy(isNameByte) { return true }
    return name.unicodeScalars.allSatisfy { scalar in
      scalar.isASCII ? isNameByte(UInt8(scalar.value)) : CharacterSet.alphanumerics.contains(scalar)
    }
  }

  private static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "%"):
      return true
    default:
      return false
    }
  }

  /// `folder/NAME SUFFIX` when `name` is a valid name (`isValidName`), else nil: the one place a
  /// stored name becomes a path.
  public static func path(_ name: String, in folder: String, suffix: String = "") -> String? {
    isValidName(name) ? folder + "/" + name + suffix : nil
  }

  // MARK: - Folders

  /// Makes the state folder `state` and the folders above it that are missing, mode 0700, the
  /// state folder with its `.gitignore`. An existing one is used as it is (followed: see the type's
  /// notes); one that is not a folder is an error.
  public static func makeStateFolder(_ state: String) throws(StateFileError) {
    var info = stat()
    if stat(state, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else { throw notAFolder(state) }
      return
    }
    var code = errno
    guard code == ENOENT else { throw failure(state, "cannot use the folder", code) }
    var missing = [state]
    var parent = directory(of: state)
    while parent != "/", parent != "." {
      if stat(parent, &info) == 0 {
        guard info.st_mode & S_IFMT == S_IFDIR else { throw notAFolder(parent) }
        break
      }
      code = errno
      guard code == ENOENT else { throw failure(parent, "cannot use the folder", code) }
      missing.append(parent)
      parent = directory(of: parent)
    }
    for folder in missing.reversed() {
      if mkdir(folder, folderMode) == 0 {
        if folder == state { ignoreInGit(state) }
        continue
      }
      code = errno
      if code == EEXIST, stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
      throw failure(folder, "cannot create the folder", code)
    }
  }

  /// `STATE/NAME`, made (mode 0700, the state folder first when missing) unless it is there;
  /// refused when it is a symbolic link or not a folder. Returns its path.
  @discardableResult
  public static func folder(_ name: String, in state: String) throws(StateFileError) -> String {
    guard let path = path(name, in: state) else {
      throw StateFileError(path: state + "/" + name, message: "is not a name reqbench makes", reason: "invalid name", kind: .invalidName)
    }
    try makeStateFolder(state)
    if mkdir(path, folderMode) == 0 { return path }
    let code = errno
    guard code == EEXIST else { throw failure(path, "cannot create the folder", code) }
    _ = try existingFolder(path)
    return path
  }

  /// `folder(_:in:)` of a store's folder given whole (`STATE/cache`): its parent is the state
  /// folder.
  @discardableResult
  public static func folder(at path: String) throws(StateFileError) -> String {
    try folder(String(path.split(separator: "/").last ?? ""), in: directory(of: path))
  }

  /// Whether the folder at `path` exists: false when it does not; an error when it is a symbolic
  /// link or not a folder (nothing in it is then read, written or removed). An existing one open
  /// to others is made 0700.
  public static func existingFolder(_ path: String) throws(StateFileError) -> Bool {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      let code = errno
      if code == ENOENT { return false }
      throw failure(path, "cannot use the folder", code)
    }
    switch info.st_mode & S_IFMT {
    case S_IFDIR:
      // One an earlier version made open to others (0755) is made private like a new one.
      if info.st_mode & 0o077 != 0, info.st_uid == geteuid() { chmod(path, folderMode) }
      return true
    case S_IFLNK: throw folderLink(path)
    default: throw notAFolder(path)
    }
  }

  /// Writes the state folder's `.gitignore` (`*`) unless there is a file of that name: when
  /// reqbench makes the folder, and for a folder an earlier reqbench made without one.
  public static func ignoreInGit(_ state: String) {
    let fd = open(state + "/" + ignoreFileName, O_WRONLY | O_CREAT | O_EXCL, mode: fileMode)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array(ignoreText.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { posixWrite(fd, $0.baseAddress, $0.count) }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }

  /// The names in `folder` (without `.` and `..`); empty when it is missing, unreadable, a
  /// symbolic link or not a folder.
  public static func list(_ folder: String) -> [String] {
    let fd = open(folder, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { return [] }
    guard let directory = fdopendir(fd) else {
      close(fd)
      return []
    }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  // MARK: - Files

  /// `open(2)` of a path in the state folder: never through a symbolic link at its end (`ELOOP`),
  /// and not inherited by child processes.
  public static func open(_ path: String, _ flags: Int32, mode: mode_t = fileMode) -> Int32 {
    posixOpen(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
  }

  /// Opens the regular file at `path` for reading, with its `fstat`: nil when there is none; an
  /// error when it is a symbolic link, a FIFO, a device or a folder (none is waited on: the open
  /// does not block).
  public static func openRegular(_ path: String) throws(StateFileError) -> (descriptor: Int32, info: stat)? {
    // A device is not even opened (opening one may do something).
    var info = stat()
    if lstat(path, &info) == 0 {
      switch info.st_mode & S_IFMT {
      case S_IFREG: break
      case S_IFLNK: throw fileLink(path)
      default: throw notARegularFile(path, info)
      }
    }
    let fd = open(path, O_RDONLY | O_NONBLOCK)
    guard fd >= 0 else {
      let code = errno
      if code == ENOENT || code == ENOTDIR { return nil }
      if code == ELOOP || code == EMLINK { throw fileLink(path) }
      throw failure(path, "cannot read", code)
    }
    guard fstat(fd, &info) == 0 else {
      let code = errno
      close(fd)
      throw failure(path, "cannot read", code)
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw notARegularFile(path, info)
    }
    return (fd, info)
  }

  /// The bytes of the regular file at `path` (`openRegular`), at most `limit` of them: nil when
  /// there is no file; an error when it is not a regular file or is larger.
  public static func read(_ path: String, limit: Int) throws(StateFileError) -> [UInt8]? {
    guard let (fd, info) = try openRegular(path) else { return nil }
    defer { close(fd) }
    if Int(info.st_size) > limit { throw tooLarge(path, limit) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw failure(path, "cannot read", errno)
      }
      if count == 0 { return bytes }
      // The file grew since the fstat: still bounded.
      if bytes.count + count > limit { throw tooLarge(path, limit) }
      bytes.append(contentsOf: chunk[0..<count])
    }
  }

  /// Whether `path` is a symbolic link (not followed).
  public static func isLink(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
  }

  // MARK: - Errors

  /// A folder of the state folder (or the state folder) that is a symbolic link.
  public static func folderLink(_ path: String) -> StateFileError {
    StateFileError(
      path: path,
      message: "is a symbolic link; reqbench keeps history, the cache, downloads, cookies, tokens and captured "
        + "values only in a real folder beside the workspace: remove the link (reqbench creates the folder) "
        + "or choose a folder with --state-dir DIR",
      reason: "symbolic link", kind: .link)
  }

  /// A file of the state folder (or the secrets file) that is a symbolic link.
  public static func fileLink(_ path: String) -> StateFileError {
    StateFileError(
      path: path, message: "is a symbolic link; reqbench never reads or writes its state through one: remove it",
      reason: "symbolic link", kind: .link)
  }

  static func notAFolder(_ path: String) -> StateFileError {
    StateFileError(path: path, message: "is not a folder; remove it (reqbench creates the folder)", reason: "not a folder", kind: .notRegular)
  }

  /// A FIFO, a device, a folder or a socket where a file belongs.
  public static func notARegularFile(_ path: String, _ info: stat) -> StateFileError {
    let what: String
    switch info.st_mode & S_IFMT {
    case S_IFIFO: what = "a FIFO"
    case S_IFCHR, S_IFBLK: what = "a device"
    case S_IFDIR: what = "a folder"
    case S_IFSOCK: what = "a socket"
    default: what = "not a regular file"
    }
    return StateFileError(
      path: path, message: "is \(what), not a regular file; nothing is read from it: remove it",
      reason: "not a regular file", kind: .notRegular)
  }

  static func tooLarge(_ path: String, _ limit: Int) -> StateFileError {
    StateFileError(path: path, message: "is larger than \(limit) bytes: damaged", reason: "too large", kind: .tooLarge)
  }

  static func failure(_ path: String, _ what: String, _ code: Int32) -> StateFileError {
    let reason = String(cString: strerror(code))
    return StateFileError(path: path, message: "\(what): \(reason)", reason: reason, kind: .system)
  }

  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let directory = String(path[..<slash])
    return directory.isEmpty ? "/" : directory
  }
}

/// Why a file or folder of the state folder (or the secrets file) cannot be used.
public struct StateFileError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// A symbolic link: never followed.
    case link
    /// A FIFO, a device, a folder where a file belongs (or a file where a folder does).
    case notRegular
    case tooLarge
    /// A name that `StateFiles.isValidName` refuses.
    case invalidName
    /// What the system said (`reason`).
    case system
  }

  public var path: String
  public var message: String
  /// The system's reason alone, or a short word for the others.
  public var reason: String
  public var kind: Kind

  public init(path: String, message: String, reason: String, kind: Kind) {
    self.path = path
    self.message = message
    self.reason = reason
    self.kind = kind
  }

  /// `PATH: message`.
  public var description: String { "\(path): \(message)" }
}

// The POSIX calls, under names the methods above do not shadow.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
}

private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(fd, buffer, count)
}

private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, buffer, count)
}
