import Base
import Digest
import Foundation
import Synchronization

/// Where a download's body goes: a file that appears only when the download is complete and
/// checked. The body streams to a partial file in the agent's download state folder meanwhile.
public struct DownloadTarget: Sendable, Equatable, Hashable {
  /// The final file (absolute). An existing file there is replaced atomically on success and
  /// left untouched by a failure.
  public var path: String
  /// Lower-case hex SHA-256 the finished file must have.
  public var sha256: String?
  /// Resume even when the server gave no validator (no strong ETag, no Last-Modified), trusting
  /// that the resource did not change. Off: such a partial file restarts from 0 (`noValidator`).
  public var trustLength: Bool

  public init(path: String, sha256: String? = nil, trustLength: Bool = false) {
    self.path = path
    self.sha256 = sha256?.lowercased()
    self.trustLength = trustLength
  }
}

/// Why a download that had partial data started again from byte 0.
public enum RestartReason: String, Sendable, Equatable {
  /// The server ignored `Range` and sent the whole resource (200).
  case rangeNotSupported
  /// The resource changed since the partial data was fetched (`If-Range` failed, or it shrank).
  case resourceChanged
  /// A 206 whose `Content-Range` did not start at the bytes on disk.
  case badContentRange
  /// The server gave no validator to resume against safely.
  case noValidator
  /// The saved resume state was unreadable.
  case invalidState
}

/// What a download exchange did with the file.
public struct DownloadOutcome: Sendable, Equatable {
  /// The target path.
  public var file: String
  /// Bytes on disk: the whole file after a success, the partial data kept otherwise.
  public var bytes: Int64
  /// The resource's full length, when the server said.
  public var totalBytes: Int64?
  /// The offset this exchange continued from (0: from the start).
  public var resumedFrom: Int64
  public var restartReason: RestartReason?
  /// Partial data and validators are kept: sending the request again continues from `bytes`.
  public var resumable: Bool
  /// The target file is complete and in place.
  public var complete: Bool

  public init(
    file: String, bytes: Int64, totalBytes: Int64?, resumedFrom: Int64, restartReason: RestartReason?,
    resumable: Bool, complete: Bool
  ) {
    self.file = file
    self.bytes = bytes
    self.totalBytes = totalBytes
    self.resumedFrom = resumedFrom
    self.restartReason = restartReason
    self.resumable = resumable
    self.complete = complete
  }

  /// How much of the resource is on disk, 0–100, when its length is known.
  public var percent: Double? { Self.percent(bytes, of: totalBytes) }

  static func percent(_ bytes: Int64, of total: Int64?) -> Double? {
    guard let total, total > 0 else { return nil }
    return min(100, Double(bytes) * 100 / Double(total))
  }
}

/// The partial file of one download attempt: written on the engine thread from curl's write
/// callback, its state saved every 16 MB or 2 s and on every end, so a restart (after a cancel,
/// a crash or `kill -9`) resumes from the bytes actually on disk.
final class DownloadWriter {
  let store: DownloadStore
  let key: String
  let target: DownloadTarget
  private(set) var sidecar: DownloadStore.Sidecar
  /// The offset a Range asked for (0 without one).
  let requestedOffset: Int64
  /// Set when the partial data on disk was dropped before sending.
  let preRestartReason: RestartReason?
  private var fd: Int32 = -1
  private(set) var bytesOnDisk: Int64
  private(set) var decision: DownloadDecision?
  private(set) var error: String?
  private var unrecordedBytes: Int64 = 0
  /// Bytes appended but not yet written (see `append`), and the file offset they start at.
  private let buffer: UnsafeMutableRawBufferPointer
  private var buffered = 0
  private var writtenOffset: Int64 = 0
  static let alignment: Int64 = 4 << 10
  private var lastCheckpoint = MonotonicClock.now()

  static let checkpointEveryBytes: Int64 = 16 << 20
  static let checkpointEverySeconds = 2.0

  /// Opens (or starts) the partial file of `request`'s download. `fresh` drops partial data.
  init(request: Request, target: DownloadTarget, store: DownloadStore, fresh: RestartReason?) throws {
    self.store = store
    self.target = target
    key = store.key(method: request.method, target: target.path)
    try store.ensureDirectory()
    // Partial data to continue from, or why it is dropped.
    var reason = fresh
    var existing: DownloadStore.Sidecar?
    var onDisk: Int64 = 0
    if fresh == nil {
      switch store.load(method: request.method, target: target.path) {
      case .absent: break
      case .invalid: reason = .invalidState
      case .found(let sidecar, let bytes):
        if bytes > 0 && sidecar.validators.ifRange == nil && !target.trustLength {
          reason = .noValidator
        } else {
          existing = sidecar
          onDisk = bytes
        }
      }
    }
    // The partial file becomes the downloaded file (renamed into place): created 0666 less the
    // umask, as curl -o and browsers create theirs. (Its sidecar, the state, is 0600.)
    // Never through a link, never a FIFO that would block (`StateFiles`).
    let descriptor = StateFiles.open(store.partPath(key), O_WRONLY | O_CREAT | O_NONBLOCK, mode: 0o666)
    guard descriptor >= 0 else {
      throw DownloadFailure("cannot open \(store.partPath(key)): \(String(cString: strerror(errno)))")
    }
    func fail(_ message: String) -> DownloadFailure {
      close(descriptor)
      return DownloadFailure(message)
    }
    var partInfo = stat()
    guard fstat(descriptor, &partInfo) == 0, partInfo.st_mode & S_IFMT == S_IFREG else {
      throw fail("cannot open \(store.partPath(key)): not a regular file; remove it")
    }
    // One writer per partial file, across processes too (the TUI and `run` in another terminal):
    // the lock goes with the descriptor.
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      throw fail("another reqbench is downloading to \(target.path) right now; wait for it or cancel it there")
    }
    if existing == nil {
      // Start from 0. (No ftruncate of a file that is already empty: ext4 takes
      // truncate-then-write for a file being replaced and flushes it on close, which costs a fast
      // download half its speed.)
      var info = stat()
      if fstat(descriptor, &info) == 0, info.st_size > 0, ftruncate(descriptor, 0) != 0 {
        throw fail("cannot truncate \(store.partPath(key)): \(String(cString: strerror(errno)))")
      }
    } else if lseek(descriptor, off_t(onDisk), SEEK_SET) < 0 {
      throw fail("cannot prepare \(store.partPath(key)): \(String(cString: strerror(errno)))")
    }
    fd = descriptor
    buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(Self.alignment) * 16, alignment: 4096)
    sidecar =
      existing
      ?? DownloadStore.Sidecar(
        label: request.name, method: request.method.rawValue, url: request.redacted().url, target: target.path,
        validators: Validators(), totalLength: nil, recordedBytes: 0, updated: Date().timeIntervalSince1970)
    // The state is the target's: the latest attempt's name and URL are what it shows.
    sidecar.label = request.name
    sidecar.url = request.redacted().url
    sidecar.target = target.path
    requestedOffset = onDisk
    bytesOnDisk = onDisk
    writtenOffset = onDisk
    preRestartReason = reason
    try store.save(sidecar, key: key)  // after init: deinit closes the descriptor on a throw
  }

  deinit {
    if fd >= 0 { close(fd) }
    buffer.deallocate()
  }

  /// The `If-Range` value for a resume; nil when this attempt starts from 0.
  var ifRange: String? {
    guard requestedOffset > 0 else { return nil }
    return sidecar.validators.ifRange
  }

  /// Decides from the final response's head; returns the decision (also kept).
  @discardableResult
  func begin(status: Int, headers: HTTPHeaders) -> DownloadDecision {
    let decision = DownloadDecision.decide(
      status: status, headers: headers, offset: requestedOffset, stored: sidecar.validators)
    self.decision = decision
    switch decision {
    case .write(let offset, let total, _):
      if offset == 0 && bytesOnDisk > 0 {
        if ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) < 0 {
          error = "cannot truncate \(store.partPath(key)): \(String(cString: strerror(errno)))"
        }
        bytesOnDisk = 0
        writtenOffset = 0
      }
      if offset == 0 { sidecar.validators = Validators(headers: headers) }
      sidecar.totalLength = total
      sidecar.recordedBytes = bytesOnDisk
      saveSidecar()
    case .alreadyComplete(let total):
      sidecar.totalLength = total
    case .restart, .failure:
      break
    }
    return decision
  }

  /// Appends body bytes; false stops the transfer (a write error). Bytes are gathered in a small
  /// buffer (64 KiB, still in the CPU cache when the kernel copies it) and written in pieces
  /// that end on page boundaries of the file: curl hands them over in pieces of up to 16 KiB
  /// that rarely end on a page, and unaligned writes make the kernel zero and copy partial pages
  /// (half the throughput of `curl -o`, which writes through stdio's aligned buffer).
  func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard error == nil else { return false }
    var rest = bytes
    while !rest.isEmpty {
      let room = buffer.count - buffered
      let n = min(room, rest.count)
      UnsafeMutableRawBufferPointer(rebasing: buffer[buffered..<(buffered + n)]).copyMemory(
        from: UnsafeRawBufferPointer(rebasing: rest[0..<n]))
      buffered += n
      rest = UnsafeRawBufferPointer(rebasing: rest[n...])
      if buffered == buffer.count, !flush(aligned: true) { return false }
    }
    bytesOnDisk += Int64(bytes.count)
    unrecordedBytes += Int64(bytes.count)
    if unrecordedBytes >= Self.checkpointEveryBytes || MonotonicClock.now() - lastCheckpoint >= Self.checkpointEverySeconds {
      checkpoint()
    }
    return error == nil
  }

  /// Writes the buffer out: all of it, or (`aligned`) up to the last page boundary of the file,
  /// keeping the tail for the next write.
  @discardableResult
  private func flush(aligned: Bool = false) -> Bool {
    guard buffered > 0, fd >= 0, error == nil else { return error == nil }
    var count = buffered
    if aligned {
      let end = writtenOffset + Int64(buffered)
      let tail = Int(end % Self.alignment)
      if tail < buffered { count = buffered - tail }
    }
    var offset = 0
    while offset < count {
      let written = Glibc.write(fd, buffer.baseAddress! + offset, count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        error = "cannot write \(store.partPath(key)): \(String(cString: strerror(errno)))"
        return false
      }
      offset += written
    }
    writtenOffset += Int64(count)
    if count < buffered {
      let base = buffer.baseAddress!
      memmove(base, base + count, buffered - count)
    }
    buffered -= count
    return true
  }

  /// Records the length written so far in the sidecar (which is fsynced, see `save`). The
  /// partial data file is not, as curl, wget and browsers do not sync theirs: a crash or
  /// `kill -9` loses nothing written (the page cache outlives the process), a resume goes by the partial file's actual length, and a power loss cannot leave garbage
  /// inside that length on a journaling file system's ordered mode (ext4's default); a `sha256`
  /// catches anything else. Syncing every few MB would halve the throughput of a fast download.
  func checkpoint() {
    guard fd >= 0 else { return }
    flush()
    unrecordedBytes = 0
    lastCheckpoint = MonotonicClock.now()
    sidecar.recordedBytes = bytesOnDisk
    saveSidecar()
  }

  private func saveSidecar() {
    sidecar.updated = Date().timeIntervalSince1970
    try? store.save(sidecar, key: key)
  }

  /// Ends the attempt keeping the partial data for a resume.
  func closeKeeping() {
    guard fd >= 0 else { return }
    checkpoint()
    close(fd)
    fd = -1
  }

  /// Ends the attempt and forgets everything (an HTTP error such as 404: nothing to resume).
  func closeDiscarding() {
    if fd >= 0 { close(fd) }
    fd = -1
    store.remove(key)
  }

  /// Writes out what is buffered and closes the file for finalizing.
  func closeForFinalizing() {
    flush()
    if fd >= 0 { close(fd) }
    fd = -1
  }

  func outcome(resumable: Bool, complete: Bool) -> DownloadOutcome {
    var resumedFrom: Int64 = 0
    var restart = preRestartReason
    switch decision {
    case .write(let offset, _, let reason)?:
      resumedFrom = offset
      if reason != nil { restart = reason }
    case .alreadyComplete(let total)?: resumedFrom = total
    case .restart(let reason)?: restart = reason
    default: resumedFrom = 0
    }
    return DownloadOutcome(
      file: target.path, bytes: bytesOnDisk, totalBytes: sidecar.totalLength, resumedFrom: resumedFrom,
      restartReason: restart, resumable: resumable, complete: complete)
  }
}

/// A download's finalization, which a cancel may overtake until the file moves.
final class FinalizeJob: Sendable {
  private enum State: UInt8, AtomicRepresentable { case pending, cancelled, claimed }
  private let state = Atomic(State.pending)

  /// Returns whether the cancel won (the file will not move).
  func cancel() -> Bool { settle(as: .cancelled) }

  /// Returns whether the file may move (no cancel came first).
  func claim() -> Bool { settle(as: .claimed) }

  /// The first of cancel and claim decides; returns whether `outcome` is what was decided.
  private func settle(as outcome: State) -> Bool {
    let (exchanged, original) = state.compareExchange(expected: .pending, desired: outcome, ordering: .acquiringAndReleasing)
    return exchanged || original == outcome
  }
}

struct DownloadFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Moves a complete partial file onto its target: check length and checksum, rename (copy then
/// rename across file systems). Runs off the engine thread. No fsync (see
/// `DownloadWriter.checkpoint`): ext4 flushes a file renamed over an existing one by itself.
enum DownloadFinalizer {
  enum Failure: Error, Sendable {
    case length(expected: Int64, found: Int64)
    case checksum(expected: String, found: String)
    case io(String)
    /// Cancelled before the file was moved into place: the complete data stays resumable.
    case cancelled
  }

  /// - Parameters:
  ///   - claim: asked just before the file moves; false (a cancel came first) stops there.
  ///   - sidecar: the resume state, removed once the file is in place.
  static func finalize(
    part: String, target: DownloadTarget, expectedLength: Int64?, sidecar: String, claim: () -> Bool
  ) throws(Failure) -> Int64 {
    let fd = StateFiles.open(part, O_RDONLY | O_NONBLOCK)
    guard fd >= 0 else { throw .io("cannot open \(part): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var info = stat()
    fstat(fd, &info)
    let size = Int64(info.st_size)
    if let expectedLength, expectedLength != size { throw .length(expected: expectedLength, found: size) }
    if let expected = target.sha256 {
      var digest = SHA256()
      let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
      defer { chunk.deallocate() }
      while true {
        let count = read(fd, chunk.baseAddress, chunk.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        digest.update(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
      }
      let found = hexString(digest.finalize())
      if found != expected { throw .checksum(expected: expected, found: found) }
    }
    guard claim() else { throw .cancelled }
    let folder = (target.path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw .io("cannot create \(folder): \(error.localizedDescription)")
    }
    if rename(part, target.path) != 0 {
      guard errno == EXDEV else {
        throw .io("cannot move the download to \(target.path): \(String(cString: strerror(errno)))")
      }
      try copyAcross(fd: fd, to: target.path, folder: folder)
      unlink(part)
    }
    unlink(sidecar)
    return size
  }

  /// The state folder is on another file system: copy beside the target, then rename.
  private static func copyAcross(fd: Int32, to target: String, folder: String) throws(Failure) {
    let temporary = folder + "/.\((target as NSString).lastPathComponent).reqbench-\(UInt32.random(in: 0 ... .max))"
    let out = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)  // less the umask
    guard out >= 0 else { throw .io("cannot create \(temporary): \(String(cString: strerror(errno)))") }
    lseek(fd, 0, SEEK_SET)
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { chunk.deallocate() }
    while true {
      let count = read(fd, chunk.baseAddress, chunk.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      var offset = 0
      while offset < count {
        let written = write(out, chunk.baseAddress! + offset, count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          close(out)
          unlink(temporary)
          throw .io("cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        offset += written
      }
    }
    fsync(out)
    close(out)
    if rename(temporary, target) != 0 {
      unlink(temporary)
      throw .io("cannot move the download to \(target): \(String(cString: strerror(errno)))")
    }
  }
}
