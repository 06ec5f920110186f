import Digest
import Foundation

/// A download that has not finished: what `DownloadStore.pending()` lists, e.g. for a UI that
/// offers to resume after a restart.
public struct PendingDownload: Sendable, Equatable {
  /// The request's name when it was sent.
  public var label: String
  public var method: String
  public var url: String
  public var target: String
  /// Bytes in the partial file right now.
  public var bytesOnDisk: Int64
  public var totalBytes: Int64?
  public var updated: Date

  public init(
    label: String, method: String, url: String, target: String, bytesOnDisk: Int64, totalBytes: Int64?, updated: Date
  ) {
    self.label = label
    self.method = method
    self.url = url
    self.target = target
    self.bytesOnDisk = bytesOnDisk
    self.totalBytes = totalBytes
    self.updated = updated
  }

  public var percent: Double? { DownloadOutcome.percent(bytesOnDisk, of: totalBytes) }
}

/// Resume state on disk: for each unfinished download a partial file `KEY.part` and a sidecar
/// `KEY.json` (method, URL, target, validators, length).
///
/// A partial download belongs to its target file, not to the URL it came from: KEY is
/// sha256(method, the target's path relative to this folder). So a download resumes whatever its
/// URL's host, port or query says now (the demo server's new port, `--var host=…`, a freshly
/// signed query string), and after the project folder moved with its state; the stored
/// validator, sent as `If-Range` and checked on the 206, keeps another resource's bytes out. Two
/// targets never share state, and one target has one partial file, so nothing is orphaned when a
/// URL changes. State of the first format (version 1, keyed by sha256(method, URL, target)) is
/// adopted under the new key, the most recent per target, the rest removed. Unreadable or stale
/// state is ignored and removed: the download restarts from 0, nothing crashes.
public final class DownloadStore: Sendable {
  public let directory: String
  /// State untouched for this long is garbage (30 days).
  public let maxAge: Double

  public init(directory: String, maxAge: Double = 30 * 24 * 3600) {
    self.directory = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    self.maxAge = maxAge
  }

  struct Sidecar: Codable, Equatable {
    /// 2: keyed by target. (1: keyed by method, URL and target; adopted on sight.)
    var version = DownloadStore.format
    var label: String
    var method: String
    /// Secrets masked (`Request.redacted()`): for showing, not for matching. The URL of the
    /// latest attempt.
    var url: String
    /// The absolute target when last written (for showing: the key is what matches).
    var target: String
    var validators: Validators
    var totalLength: Int64?
    /// The partial file's length at the last checkpoint (it may hold more: a resume goes by
    /// its actual length).
    var recordedBytes: Int64
    var updated: Double
  }

  static let format = 2
  static let legacyFormat = 1

  enum Loaded {
    case absent
    case invalid
    case found(Sidecar, bytesOnDisk: Int64)
  }

  /// The key of `target`'s state: a digest of the method and the target relative to this folder.
  func key(method: HTTPMethod, target: String) -> String {
    SHA256.hex(Array("\(method.rawValue)\n\(Self.relativePath(target, from: directory))".utf8))
  }

  /// `path` relative to the folder `base` (both absolute): `../../downloads/big.bin`.
  static func relativePath(_ path: String, from base: String) -> String {
    let to = path.split(separator: "/", omittingEmptySubsequences: true)
    let from = base.split(separator: "/", omittingEmptySubsequences: true)
    var common = 0
    while common < to.count, common < from.count, to[common] == from[common] { common += 1 }
    let up = Array(repeating: "..", count: from.count - common)
    return (up + to[common...].map(String.init)).joined(separator: "/")
  }

  func partPath(_ key: String) -> String { "\(directory)/\(key).part" }
  func sidecarPath(_ key: String) -> String { "\(directory)/\(key).json" }

  /// The folder, made mode 0700 (the state folder too, when this makes it); a link there is
  /// refused (`StateFiles`).
  func ensureDirectory() throws {
    try StateFiles.folder(at: directory)
  }

  /// The largest sidecar read (a few hundred bytes; more is damage).
  static let sidecarLimit = 1 << 20

  /// A sidecar's bytes, never through a link (`StateFiles.read`); nil when missing or unusable.
  private func sidecarData(_ key: String) -> [UInt8]? {
    try? StateFiles.read(sidecarPath(key), limit: Self.sidecarLimit)
  }

  private func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  /// The names in the folder that can be state: `KEY.json` and `KEY.part` with a key reqbench
  /// makes (`StateFiles.isValidName`); not through a link.
  private func names() -> [String] {
    StateFiles.list(directory).filter { name in
      (name.hasSuffix(".json") || name.hasSuffix(".part")) && StateFiles.isValidName(String(name.dropLast(5)))
    }
  }

  /// The state of `target`'s download: found, absent, or invalid (then removed).
  func load(method: HTTPMethod, target: String) -> Loaded {
    let key = key(method: method, target: target)
    guard let data = sidecarData(key) else {
      // Partial data without its sidecar cannot be trusted.
      if exists(partPath(key)) {
        unlink(partPath(key))
        return .invalid
      }
      return adoptLegacy(method: method, target: target, key: key)
    }
    guard let sidecar = decode(data), sidecar.version == Self.format, sidecar.method == method.rawValue,
      Date().timeIntervalSince1970 - sidecar.updated < maxAge
    else {
      remove(key)
      return .invalid
    }
    guard let bytes = partLength(key) else {
      remove(key)
      return .invalid
    }
    return .found(sidecar, bytesOnDisk: bytes)
  }

  /// Writes the sidecar atomically and durably: a temporary file in the same folder, fsync (a
  /// few hundred bytes: about 0.2 ms), rename. The partial data file is not synced (see
  /// `DownloadWriter.checkpoint`).
  func save(_ sidecar: Sidecar, key: String) throws {
    let data = try JSONEncoder().encode(sidecar)
    try CacheFile.write(Array(data), to: URL(fileURLWithPath: sidecarPath(key)), durable: true)
  }

  func remove(_ key: String) {
    unlink(sidecarPath(key))
    unlink(partPath(key))
  }

  /// The unfinished downloads on disk, most recently updated first. Adopts state of the first
  /// format and removes stale, unreadable and orphaned state on the way.
  public func pending() -> [PendingDownload] {
    var names = self.names()
    let legacy = names.filter { $0.hasSuffix(".json") }.compactMap { name -> Sidecar? in
      let sidecar = sidecarData(String(name.dropLast(5))).flatMap(decode)
      return sidecar?.version == Self.legacyFormat ? sidecar : nil
    }
    if !legacy.isEmpty {
      for sidecar in legacy {
        guard let method = HTTPMethod(rawValue: sidecar.method) else { continue }
        _ = load(method: method, target: sidecar.target)
      }
      names = self.names()
    }
    var found: [PendingDownload] = []
    let now = Date().timeIntervalSince1970
    for name in names where name.hasSuffix(".json") {
      let key = String(name.dropLast(5))
      guard let data = sidecarData(key), let sidecar = decode(data),
        sidecar.version == Self.format, now - sidecar.updated < maxAge, let bytes = partLength(key)
      else {
        remove(key)
        continue
      }
      found.append(
        PendingDownload(
          label: sidecar.label, method: sidecar.method, url: sidecar.url, target: sidecar.target,
          bytesOnDisk: bytes, totalBytes: sidecar.totalLength, updated: Date(timeIntervalSince1970: sidecar.updated)))
    }
    // Partial files whose sidecar is gone are garbage.
    for name in names where name.hasSuffix(".part") {
      let key = String(name.dropLast(5))
      if !exists(sidecarPath(key)) { unlink(partPath(key)) }
    }
    return found.sorted { $0.updated > $1.updated }
  }

  // MARK: - Private

  private func decode(_ data: [UInt8]) -> Sidecar? { try? JSONDecoder().decode(Sidecar.self, from: Data(data)) }

  private func partLength(_ key: String) -> Int64? {
    var info = stat()
    guard lstat(partPath(key), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int64(info.st_size)
  }

  /// State of the first format for `target` (keyed by method, URL and target): the most recent
  /// with its partial file moves under `key`; the others for the same target are removed, as
  /// are legacy sidecars that are unreadable or stale.
  private func adoptLegacy(method: HTTPMethod, target: String, key: String) -> Loaded {
    let names = self.names()
    var candidates: [(key: String, sidecar: Sidecar)] = []
    let now = Date().timeIntervalSince1970
    for name in names where name.hasSuffix(".json") {
      let legacyKey = String(name.dropLast(5))
      guard legacyKey != key, let data = sidecarData(legacyKey),
        let sidecar = decode(data), sidecar.version == Self.legacyFormat,
        sidecar.method == method.rawValue, sidecar.target == target
      else { continue }
      if now - sidecar.updated >= maxAge || partLength(legacyKey) == nil {
        remove(legacyKey)
        continue
      }
      candidates.append((legacyKey, sidecar))
    }
    guard let newest = candidates.max(by: { $0.sidecar.updated < $1.sidecar.updated }) else { return .absent }
    for other in candidates where other.key != newest.key { remove(other.key) }
    var adopted = newest.sidecar
    adopted.version = Self.format
    guard rename(partPath(newest.key), partPath(key)) == 0, (try? save(adopted, key: key)) != nil else {
      remove(newest.key)
      remove(key)
      return .invalid
    }
    unlink(sidecarPath(newest.key))
    guard let bytes = partLength(key) else { return .invalid }
    return .found(adopted, bytesOnDisk: bytes)
  }
}
