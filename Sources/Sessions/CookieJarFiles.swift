import Foundation
import RequestEngine
import Workspace

/// The cookie jars of one workspace: one per environment, each kept in the state folder in curl's
/// Netscape cookie-file format (`curl -b FILE` and `curl -c FILE` read and write it too):
/// `STATE/cookies/env-NAME.txt` (NAME percent-encoded), `STATE/cookies/workspace.txt` when no
/// environment is selected. A jar is read when a request first needs it and written (atomically,
/// mode 0600, in a folder of mode 0700) after the exchanges that received a `Set-Cookie`,
/// gathered for `saveDelay` seconds so a burst of logins writes once. Session cookies are kept
/// like the others: a workbench session outlives a process, until `reqbench cookies clear`.
///
/// Several processes share a jar file (two `run`s, the TUI and `reqbench cookies rm`): each
/// merges what the others wrote with a three-way rule (`CookieJarFile.merge`), so a cookie one
/// process set, changed, deleted or let expire is not brought back by another that left it alone.
///
/// `prepare` gives a request the jar of its environment when `VariableSources.cookies` is set and
/// neither the workspace nor the request says `"cookies": false`.
///
/// ```swift
/// let jars = CookieJars(stateFolder: state)
/// var sources = VariableSources(environment: "dev")
/// sources.cookies = jars
/// let request = try workspace.prepare(template, sources: sources)  // request.cookieJar is dev's
/// agent.send(request)
/// jars.flush()  // before the process ends
/// ```
public final class CookieJars: CookieJarSource, @unchecked Sendable {
  public let stateFolder: URL
  /// Seconds the exchanges that changed a jar gather before it is written.
  public let saveDelay: Double
  private let lock = NSLock()
  private var files: [String: CookieJarFile] = [:]
  private var reported: [FileError] = []
  private let onError: @Sendable (FileError) -> Void

  /// `onError` hears of a jar that could not be read or written (once per file and message).
  public init(
    stateFolder: URL, saveDelay: Double = 0.02, onError: @escaping @Sendable (FileError) -> Void = { _ in }
  ) {
    self.stateFolder = stateFolder
    self.saveDelay = saveDelay
    self.onError = onError
  }

  /// The file of the jar of `environment` (nil: none selected).
  public static func url(in stateFolder: URL, environment: String?) -> URL {
    StateFolder.cookies(in: stateFolder).appendingPathComponent(
      environment.map { "env-" + StateFolder.fileName(for: $0) + ".txt" } ?? "workspace.txt")
  }

  /// The jar of `environment`, read from its file the first time.
  public func jar(environment: String?) -> CookieJar { file(environment: environment).jar }

  /// The jar of `environment` and its file, read the first time. A thread that asks while another
  /// is reading it waits for the read: no request goes out with a jar half loaded.
  public func file(environment: String?) -> CookieJarFile {
    let key = environment.map { "env:" + $0 } ?? "workspace"
    let file = lock.withLock { () -> CookieJarFile in
      if let file = files[key] { return file }
      let file = CookieJarFile(
        name: key, url: Self.url(in: stateFolder, environment: environment), saveDelay: saveDelay,
        onError: { [weak self] error in self?.report(error) })
      files[key] = file
      return file
    }
    // Outside `lock`: reading may report an error, which takes `lock`.
    file.loadOnce()
    return file
  }

  /// Takes into the jars read so far what other processes wrote to their files since (a
  /// `reqbench cookies rm` in another terminal, a `run` that logged in): a long-lived process (the
  /// TUI) calls it before it sends. One `lstat` per jar when nothing changed.
  public func takeOtherWrites() {
    for file in lock.withLock({ Array(files.values) }) { file.takeOtherWrites() }
  }

  /// Writes what is waiting to be written and waits for it: call before the process ends.
  public func flush() {
    for file in lock.withLock({ Array(files.values) }) { file.flush() }
  }

  /// Moves the jars of renamed environments (new name → old name) to their new names: the TUI
  /// calls it once the file that renames them is saved. A jar loaded here keeps serving the
  /// requests that hold it, from its new file. A file the new name had (a deleted environment's)
  /// goes: the renamed environment takes none of its cookies. Names swapped (a → b, b → a) go
  /// through a temporary name.
  public func renameJars(_ renamed: [String: String]) {
    var moves = renamed.filter { $0.key != $0.value }.map { (new: $0.key, old: $0.value) }.sorted { $0.new < $1.new }
    guard !moves.isEmpty else { return }
    let loaded = lock.withLock { () -> [String: CookieJarFile] in
      var taken: [String: CookieJarFile] = [:]
      for move in moves { taken[move.old] = files.removeValue(forKey: "env:" + move.old) }
      for move in moves { files.removeValue(forKey: "env:" + move.new) }  // a deleted environment's
      return taken
    }
    var moved: [(environment: String, file: CookieJarFile)] = []
    // A move whose new name is no other move's old name goes first; a cycle is broken by
    // moving one of its jars aside.
    var aside: [(new: String, url: URL, file: CookieJarFile?)] = []
    while !moves.isEmpty {
      let olds = Set(moves.map(\.old))
      let index = moves.firstIndex { !olds.contains($0.new) }
      let move = moves.remove(at: index ?? 0)
      let target =
        index == nil
        ? StateFolder.cookies(in: stateFolder).appendingPathComponent(".renaming-\(getpid())-\(aside.count).txt")
        : Self.url(in: stateFolder, environment: move.new)
      let file = loaded[move.old]
      relocate(Self.url(in: stateFolder, environment: move.old), to: target, file: file)
      if index == nil {
        aside.append((move.new, target, file))
      } else if let file {
        moved.append((move.new, file))
      }
    }
    for entry in aside {
      relocate(entry.url, to: Self.url(in: stateFolder, environment: entry.new), file: entry.file)
      if let file = entry.file { moved.append((entry.new, file)) }
    }
    lock.withLock {
      for entry in moved { files["env:" + entry.environment] = entry.file }
    }
  }

  /// Renames the jar file at `from` to `to` (a missing one: removes `to`), holding the jars'
  /// folder lock, and points `file` (loaded from `from`) at its new place.
  private func relocate(_ from: URL, to: URL, file: CookieJarFile?) {
    let folder = StateFolder.cookies(in: stateFolder)
    let move = { [self] in
      CookieJarFile.withLock(on: folder) {
        var info = stat()
        let result =
          lstat(from.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
          ? rename(from.path, to.path) : (unlink(to.path) == 0 || errno == ENOENT ? 0 : -1)
        if result != 0 {
          let reason = String(cString: strerror(errno))
          report(FileError(path: to.path, message: "cannot move the cookie jar here: \(reason)", reason: reason))
        }
      }
    }
    if let file { file.relocate(to: to, by: move) } else { move() }
  }

  private func report(_ error: FileError) {
    let isNew = lock.withLock { () -> Bool in
      if reported.contains(error) { return false }
      reported.append(error)
      return true
    }
    if isNew { onError(error) }
  }
}

/// One jar and its file. Loads the file into the jar, and writes the jar back when told it
/// changed (`CookieJar.onChange`, from the engine thread), on a queue of its own after
/// `saveDelay`. What another process wrote to the file meanwhile (a second `run`) is merged in
/// before writing (`merge`).
public final class CookieJarFile: @unchecked Sendable {
  /// Changed only on `queue` (`relocate`), where the file is read and written.
  public private(set) var url: URL
  public let jar: CookieJar
  private let saveDelay: Double
  private let queue = WorkerThread(name: "rb-cookies")
  private let lock = NSLock()
  private var saveScheduled = false
  /// Held while the file is first read; `loaded` says it was.
  private let loadLock = NSLock()
  private var loaded = false
  /// The file as this process last read or wrote it, to notice another process's write (on `queue`).
  private var lastStamp: Stamp?
  /// The cookies of the file as this process last read or wrote it, by `Cookie.key`: what the
  /// merge compares both sides with (on `queue`).
  private var base: [String: Cookie] = [:]
  private let onError: @Sendable (FileError) -> Void

  init(name: String, url: URL, saveDelay: Double, onError: @escaping @Sendable (FileError) -> Void) {
    self.jar = CookieJar(name: name)
    self.url = url
    self.saveDelay = saveDelay
    self.onError = onError
  }

  /// Reads the file into the jar the first time (a missing file is an empty jar; lines that are
  /// no cookie are skipped, and go at the next write), and starts listening for changes. Callers
  /// that come while the first one reads wait for it.
  func loadOnce() {
    let overBounds = loadLock.withLock { () -> Bool in
      guard !loaded else { return false }
      loaded = true
      var overBounds = false
      queue.sync {
        if case .cookies(let cookies) = readFile() {
          jar.add(cookies)
          base = Self.keyed(cookies)
          overBounds = jar.cookies.count < base.count
        }
      }
      jar.onChange { [weak self] in self?.saveSoon() }
      return overBounds
    }
    // A file over the jar's bounds (written by another program, or before them) is written
    // back within them, so the next command reads no more than it keeps.
    if overBounds { saveSoon() }
  }

  /// Merges into the jar what another process wrote to the file since this one last read or
  /// wrote it (nothing when the file is as it was).
  public func takeOtherWrites() {
    queue.sync { mergeOtherWrites() }
  }

  /// Writes the jar within `saveDelay` (one write for every change until then).
  public func saveSoon() {
    let schedule = lock.withLock { () -> Bool in
      if saveScheduled { return false }
      saveScheduled = true
      return true
    }
    guard schedule else { return }
    queue.after(seconds: saveDelay) { [weak self] in
      guard let self, self.takeScheduled() else { return }  // flush() wrote it already
      self.writeNow()
    }
  }

  /// Writes the jar now (the CLI's edits), after what was scheduled.
  public func save() {
    queue.sync { writeNow() }
  }

  /// Writes now what is scheduled to be written, and waits for any write under way.
  public func flush() {
    let due = takeScheduled()
    queue.sync { if due { writeNow() } }
  }

  /// Whether a write was scheduled; it is not any more.
  private func takeScheduled() -> Bool {
    lock.withLock {
      defer { saveScheduled = false }
      return saveScheduled
    }
  }

  /// Writes what is scheduled, then runs `move` (which renames the file to `newURL`) and reads
  /// and writes the file there from now on.
  func relocate(to newURL: URL, by move: () -> Void) {
    flush()
    queue.sync {
      move()
      url = newURL
      lastStamp = Stamp(newURL)
    }
  }

  /// Empties the jar and its file.
  public func clear() {
    queue.sync {
      jar.removeAll()
      writeNow(merging: false)  // nothing on disk is merged back
    }
  }

  /// Removes the cookies `shouldRemove` picks, from the jar and its file. What another process
  /// wrote meanwhile is merged first, so its cookies stay and the removed ones do not come back
  /// (`merge`: a removal is this process's change).
  @discardableResult
  public func remove(where shouldRemove: (Cookie) -> Bool) -> Int {
    queue.sync {
      mergeOtherWrites()
      let removed = jar.remove(where: shouldRemove)
      if removed > 0 { writeNow() }
      return removed
    }
  }

  // MARK: - The merge

  /// The three-way merge of a jar file shared by processes. For each cookie (by domain, path and
  /// name): when this process left it as it was in `base` (the file as this process last read or
  /// wrote it), the file's version wins, and its absence too (another process deleted it, or let
  /// it expire); when this process changed it since (set, replaced, deleted, expired), this
  /// process's wins. So each process's changes survive the other's write, and neither brings
  /// back a cookie the other removed. Two processes that changed the same cookie: the one that
  /// writes last wins. Returns what to add to the jar and the keys to remove from it.
  public static func merge(base: [Cookie], ours: [Cookie], theirs: [Cookie]) -> (add: [Cookie], remove: Set<String>) {
    let base = keyed(base)
    let ours = keyed(ours)
    let theirs = keyed(theirs)
    var add: [Cookie] = []
    var remove: Set<String> = []
    for key in Set(base.keys).union(ours.keys).union(theirs.keys).sorted() where ours[key] == base[key] {
      switch (ours[key], theirs[key]) {
      case (_, let their?) where their != ours[key]: add.append(their)
      case (_?, nil): remove.insert(key)
      default: break
      }
    }
    return (add, remove)
  }

  static func keyed(_ cookies: [Cookie]) -> [String: Cookie] {
    Dictionary(cookies.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
  }

  /// On `queue`: when the file changed since this process last read or wrote it, merges it into
  /// the jar (`merge`) and makes it the new base.
  private func mergeOtherWrites() {
    guard Stamp(url) != lastStamp else { return }
    let theirs: [Cookie]
    switch readFile() {
    case .cookies(let cookies): theirs = cookies
    case .missing:
      theirs = []  // removed: as good as emptied
      lastStamp = nil
    case .refused: return
    }
    let change = Self.merge(base: Array(base.values), ours: jar.cookies, theirs: theirs)
    if !change.remove.isEmpty { jar.remove { change.remove.contains($0.key) } }
    jar.add(change.add)
    base = Self.keyed(theirs)
  }

  // MARK: - The file (on `queue`)

  private struct Stamp: Equatable {
    var inode: UInt64
    var size: Int64
    var modified: Int
    var modifiedNanoseconds: Int

    init?(_ url: URL) {
      var info = stat()
      guard lstat(url.path, &info) == 0 else { return nil }
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      modified = Int(info.st_mtim.tv_sec)
      modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
  }

  /// A link (or a folder, a pipe) where the jar belongs: never read or written through.
  private var notAFile: FileError {
    FileError(
      path: url.path, message: "is not a regular file (a link?); cookies are neither read from nor written to it; remove it",
      reason: "not a regular file")
  }

  /// What reading the file found.
  private enum Read {
    case cookies([Cookie])
    /// No file: an empty jar.
    case missing
    /// Not a regular file, or unreadable (reported): neither read nor written through.
    case refused
  }

  /// The file's cookies (and its stamp noted), or why there are none.
  /// The most bytes of a jar file read: far over what the jar keeps (3,000 cookies of at most a
  /// few KB), so a file an older version or another program grew is still read, cut to the
  /// jar's bounds and written back within them.
  static let maxFileBytes = 256 << 20

  private func readFile() -> Read {
    let stamp = Stamp(url)
    let bytes: [UInt8]?
    do throws(StateFileError) {
      bytes = try StateFiles.read(url.path, limit: Self.maxFileBytes)
    } catch {
      onError(error.kind == .link || error.kind == .notRegular ? notAFile : FileError(error))
      return .refused
    }
    guard let bytes else { return .missing }
    lastStamp = stamp
    return .cookies(Cookie.parseFile(String(decoding: bytes, as: UTF8.self)).cookies)
  }

  private func writeNow(merging: Bool = true) {
    let folder = url.deletingLastPathComponent()
    do throws(FileError) {
      try StateFolder.makeFolder(folder)
    } catch {
      onError(error)
      return
    }
    Self.withLock(on: folder) {
      // Another process may have written the jar since: merged, so neither loses its changes.
      if merging { mergeOtherWrites() }
      var info = stat()
      if lstat(url.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
        onError(notAFile)
        return
      }
      let now = Date()
      let cookies = jar.cookiesOldestFirst.filter { !$0.isExpired(at: now) }
      do throws(FileError) {
        try AtomicFile.write(Array(Cookie.file(cookies).utf8), to: url, permissions: 0o600, links: .refuse)
        lastStamp = Stamp(url)
        base = Self.keyed(cookies)
      } catch {
        onError(error)
      }
    }
  }

  /// Runs `body` holding an exclusive `flock` on the jars' folder: processes (and jars of one
  /// process) that merge and write a jar take turns, so none renames its file over what another
  /// wrote between its read and its rename. Without the lock (a folder that cannot be opened)
  /// `body` runs anyway: the merge still keeps all but a write that lands in that moment.
  static func withLock(on folder: URL, _ body: () -> Void) {
    let fd = StateFiles.open(folder.path, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { return body() }
    defer { close(fd) }
    while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
    defer { flock(fd, LOCK_UN) }
    body()
  }
}
