import Foundation
import RequestEngine

/// The cookie jars of one workspace: one per environment, each kept in the state folder in curl's
/// Netscape cookie-file format (`curl -b FILE` and `curl -c FILE` read and write it too):
/// `STATE/cookies/env-NAME.txt` (NAME percent-encoded), `STATE/cookies/workspace.txt` when no
/// environment is selected. A jar is read when a request first needs it and written (atomically,
/// mode 0600, in a folder of mode 0700) after the exchanges that received a `Set-Cookie`,
/// gathered for `saveDelay` seconds so a burst of logins writes once. Session cookies are kept
/// like the others: a workbench session outlives a process, until `reqbench cookies clear`.
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
public final class CookieJars: @unchecked Sendable {
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

  public func file(environment: String?) -> CookieJarFile {
    let key = environment.map { "env:" + $0 } ?? "workspace"
    let (file, created) = lock.withLock { () -> (CookieJarFile, Bool) in
      if let file = files[key] { return (file, false) }
      let file = CookieJarFile(
        url: Self.url(in: stateFolder, environment: environment), saveDelay: saveDelay,
        onError: { [weak self] error in self?.report(error) })
      files[key] = file
      return (file, true)
    }
    if created { file.load() }
    return file
  }

  /// Writes what is waiting to be written and waits for it: call before the process ends.
  public func flush() {
    for file in lock.withLock({ Array(files.values) }) { file.flush() }
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
/// `saveDelay`. What another process wrote to the file meanwhile (a second `run`) is taken in
/// before writing: cookies this process does not hold are kept.
public final class CookieJarFile: @unchecked Sendable {
  public let url: URL
  public let jar = CookieJar()
  private let saveDelay: Double
  private let queue = DispatchQueue(label: "reqbench.cookies")
  private let lock = NSLock()
  private var saveScheduled = false
  /// The file as this process last read or wrote it, to notice another process's write.
  private var lastStamp: Stamp?
  private let onError: @Sendable (FileError) -> Void

  init(url: URL, saveDelay: Double, onError: @escaping @Sendable (FileError) -> Void) {
    self.url = url
    self.saveDelay = saveDelay
    self.onError = onError
  }

  /// Reads the file into the jar (a missing file is an empty jar; lines that are no cookie are
  /// skipped, and go at the next write), and starts listening for changes.
  func load() {
    queue.sync {
      if let text = readFile() { jar.add(Cookie.parseFile(text).cookies) }
    }
    jar.onChange { [weak self] in self?.saveSoon() }
  }

  /// Writes the jar within `saveDelay` (one write for every change until then).
  public func saveSoon() {
    let schedule = lock.withLock { () -> Bool in
      if saveScheduled { return false }
      saveScheduled = true
      return true
    }
    guard schedule else { return }
    queue.asyncAfter(deadline: .now() + saveDelay) { [weak self] in
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

  /// Empties the jar and its file.
  public func clear() {
    queue.sync {
      jar.removeAll()
      writeNow(merging: false)  // nothing on disk is merged back
    }
  }

  /// Removes the cookies `shouldRemove` picks, from the jar and its file.
  @discardableResult
  public func remove(where shouldRemove: (Cookie) -> Bool) -> Int {
    queue.sync {
      let removed = jar.remove(where: shouldRemove)
      if removed > 0 {
        // What is on disk must not bring them back.
        lastStamp = Stamp(url)
        writeNow(merging: false)
      }
      return removed
    }
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

  /// The file's text, or nil when there is none (or it is not a regular file: reported).
  private func readFile() -> String? {
    var info = stat()
    guard lstat(url.path, &info) == 0 else { return nil }
    guard info.st_mode & S_IFMT == S_IFREG else {
      onError(notAFile)
      return nil
    }
    guard let data = FileManager.default.contents(atPath: url.path) else {
      onError(FileError(path: url.path, message: "cannot read the cookie jar", reason: "unreadable"))
      return nil
    }
    lastStamp = Stamp(url)
    return String(decoding: data, as: UTF8.self)
  }

  private func writeNow(merging: Bool = true) {
    if merging, let stamp = Stamp(url), stamp != lastStamp, let text = readFile() {
      // Another process wrote the jar since: its cookies that this one does not hold stay.
      let held = Set(jar.cookies.map(\.key))
      jar.add(Cookie.parseFile(text).cookies.filter { !held.contains($0.key) })
    }
    var info = stat()
    if lstat(url.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
      onError(notAFile)
      return
    }
    let now = Date()
    let cookies = jar.cookies.filter { !$0.isExpired(at: now) }
    let folder = url.deletingLastPathComponent()
    do throws(FileError) {
      if !FileManager.default.fileExists(atPath: folder.path) {
        do {
          try FileManager.default.createDirectory(
            atPath: folder.path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
          throw FileError(
            path: folder.path, message: "cannot create the folder: \(error.localizedDescription)",
            reason: error.localizedDescription)
        }
      }
      try AtomicFile.write(Array(Cookie.file(cookies).utf8), to: url, permissions: 0o600)
      lastStamp = Stamp(url)
    } catch {
      onError(error)
    }
  }
}
