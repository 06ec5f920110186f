// The response cache's listing, clearing and background sweeping of expired and stray files.

import Foundation

extension ResponseCache {
  /// Every readable entry, newest first.
  /// Reads the metadata only (and the body's size on disk), never the bodies.
  public func list() -> [Listing] {
    keysOnDisk().compactMap { key in
      guard let data = try? StateFiles.read(metadataPath(key), limit: Self.metadataLimit),
        case .object(let meta)? = try? JSONParser.parse(data), meta["format"]?.intValue == ResponseCache.format,
        let generation = meta["generation"]?.stringValue, let bytes = meta["bodyBytes"]?.intValue,
        let created = meta["createdAt"]?.doubleValue, let expires = meta["expiresAt"]?.doubleValue,
        let status = meta["status"]?.intValue, let body = bodyPath(key, generation)
      else { return nil }
      var info = stat()
      guard lstat(body, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) == bytes else { return nil }
      var listing = Listing(
        key: key, name: meta["name"]?.stringValue ?? "", url: meta["url"]?.stringValue ?? "", status: status,
        bytes: bytes, createdAt: Date(timeIntervalSince1970: created), expiresAt: Date(timeIntervalSince1970: expires),
        namespaceDigest: meta["namespace"]?.stringValue)
      listing.mustRevalidate = meta["mustRevalidate"]?.boolValue ?? false
      return listing
    }.sorted { $0.createdAt > $1.createdAt }
  }

  /// Removes every entry, or those of one request name and/or one namespace; returns how many.
  /// Without a filter, damaged entries go too.
  @discardableResult
  public func clear(name: String? = nil, namespace: String? = nil) -> Int {
    var removed = 0
    for key in keysOnDisk() {
      if name != nil || namespace != nil {
        guard let entry = read(key, remember: false) else { continue }
        if let name, entry.name != name { continue }
        if let namespace, entry.namespaceDigest != digest(namespace) { continue }
      }
      remove(key)
      removed += 1
    }
    return removed
  }

  /// Removes entries expired for longer than `sweepAfter`, damaged entries, and bodies and
  /// temporary files no metadata names, once they are `strayAge` old.
  public func sweep(now: Date = Date()) {
    var named = Set<String>()
    for key in keysOnDisk() {
      if let entry = read(key, remember: false) {
        if now.timeIntervalSince(entry.expiresAt) > sweepAfter {
          retire(key, seen: entry.generation)
        } else {
          named.insert("\(key).\(entry.generation).body")
        }
      } else if age(of: metadataPath(key), now: now) > strayAge {
        retire(key, seen: nil)
      }
    }
    for name in StateFiles.list(folder.path)
    where (name.hasSuffix(".body") && !named.contains(name)) || (name.hasPrefix(".") && name.contains(".tmp-")) {
      let path = folder.path + "/" + name
      if age(of: path, now: now) > strayAge { unlink(path) }
    }
  }

  /// Sweeps once per cache object, in the background: when a command starts (`sweepIfDue`) or
  /// after the first store. `waitForSweep` (which `Agent.shutdown` calls) lets it finish, so a
  /// short `run` no longer cuts it off.
  func sweepOnce(after stamp: Bool = false) {
    let first = lock.withLock {
      defer { swept = true }
      return !swept
    }
    guard first else { return }
    sweeping.enter()
    WorkerThread.detached(name: "rb-cache-sweep") {
      self.sweep()
      if stamp { SweepStamp(folder: self.folder.path).stamp() }
      self.sweeping.leave()
    }
  }

  /// Starts the sweep in the background unless a whole sweep ran less than `interval` seconds
  /// ago (`cache/.swept` records when): a command sweeps at its start, and a folder of many
  /// entries is read at most once an hour however many short runs there are.
  public func sweepIfDue(interval: Double = 3600, now: Date = Date()) {
    guard SweepStamp(folder: folder.path).isDue(interval: interval, now: now) else { return }
    sweepOnce(after: true)
  }

  /// Waits (at most `timeout` seconds) for a sweep in progress to end. A sweep cut off by the
  /// timeout leaves no stamp: the next command sweeps again.
  public func waitForSweep(timeout: Double = 10) {
    _ = sweeping.wait(timeout: .now() + timeout)
  }


  func age(of path: String, now: Date) -> Double {
    var info = stat()
    guard lstat(path, &info) == 0 else { return 0 }
    return now.timeIntervalSince1970 - Double(info.st_mtim.tv_sec)
  }
}
