// The response cache's entries on disk (metadata and body files, written by rename) and the in-memory LRU with the size limit.

import Digest
import Foundation

extension ResponseCache {
  /// The largest metadata file read (headers and key inputs; more is damage).
  static let metadataLimit = 16 << 20

  /// `KEY.json`: keys are digests (`CacheKey`), or names listed in the folder.
  func metadataPath(_ key: String) -> String { folder.path + "/" + key + ".json" }

  /// `KEY.GEN.body`, or nil when the generation (read from metadata) would make another path
  /// than a file of this folder: `StateFiles.path`.
  func bodyPath(_ key: String, _ generation: String) -> String? {
    StateFiles.path("\(key).\(generation)", in: folder.path, suffix: ".body")
  }

  func exists(_ key: String) -> Bool {
    var info = stat()
    return lstat(metadataPath(key), &info) == 0
  }

  /// The keys of the entries in the folder (not through a link: `StateFiles.list`).
  func keysOnDisk() -> [String] {
    StateFiles.list(folder.path).compactMap { name in
      guard name.hasSuffix(".json") else { return nil }
      let key = String(name.dropLast(5))
      return StateFiles.isValidName(key) ? key : nil
    }
  }

  func write(_ entry: inout Entry, inputs: String) -> Bool {
    do {
      if !folderExists {
        // Mode 0700 (the state folder too, when this makes it); a link there is refused.
        try StateFiles.folder(at: folder.path)
        folderExists = true
      }
      guard let bodyFile = bodyPath(entry.key, entry.generation) else { return false }
      let old = exists(entry.key) ? read(entry.key, remember: false)?.generation : nil
      try CacheFile.write(entry.body, to: URL(fileURLWithPath: bodyFile))
      let metadata = JSONObject([
        ("format", .number(ResponseCache.format)), ("key", .string(entry.key)), ("name", .string(entry.name)),
        ("generation", .string(entry.generation)), ("version", .number(entry.version)),
        ("sensitive", entry.sensitiveDigest.map { .string($0) } ?? .null),
        ("namespace", entry.namespaceDigest.map { .string($0) } ?? .null),
        ("mustRevalidate", .bool(entry.mustRevalidate)),
        ("vary", .array(entry.varyValues.map { .array([.string($0.name), .string($0.value)]) })),
        ("createdAt", .number(entry.createdAt.timeIntervalSince1970)),
        ("expiresAt", .number(entry.expiresAt.timeIntervalSince1970)),
        ("appVersion", .string(entry.appVersion)), ("status", .number(entry.status)),
        ("httpVersion", .string(entry.httpVersion)),
        ("headers", .array(entry.headers.fields.map { .array([.string($0.name), .string($0.value)]) })),
        ("url", .string(entry.url)), ("effectiveURL", .string(entry.effectiveURL)),
        ("redirectCount", .number(entry.redirectCount)), ("inputs", .string(inputs)),
        ("bodyBytes", .number(entry.body.count)), ("bodySha256", .string(SHA256.hex(entry.body))),
      ])
      try CacheFile.write(
        Array((JSONSerializer.compact(.object(metadata)) + "\n").utf8), to: URL(fileURLWithPath: metadataPath(entry.key)))
      if let old, old != entry.generation, let oldBody = bodyPath(entry.key, old) { unlink(oldBody) }
      // Bodies of damaged entries, or of writes killed half-way, are left to the sweep: one may
      // belong to another process's write in progress.
      entry.stamp = FileStamp(metadataPath(entry.key))
      trackStored(entry.key, bytes: entry.body.count)
      return true
    } catch {
      return false
    }
  }

  func read(_ key: String, remember: Bool = true) -> Entry? {
    let stamp = FileStamp(metadataPath(key))
    if let cached = lock.withLock({ memory[key] }) {
      // Served from memory only while the metadata on disk is the one it came from: another
      // process (`cache clear`, a refresh) may have changed it.
      if stamp != nil, cached.stamp == stamp {
        if remember { touch(key) }
        return cached
      }
      forget(key)
    }
    guard let data = try? StateFiles.read(metadataPath(key), limit: Self.metadataLimit),
      case .object(let meta)? = try? JSONParser.parse(data),
      meta["format"]?.intValue == ResponseCache.format,
      let generation = meta["generation"]?.stringValue,
      let created = meta["createdAt"]?.doubleValue, let expires = meta["expiresAt"]?.doubleValue,
      let status = meta["status"]?.intValue, let bytes = meta["bodyBytes"]?.intValue, bytes >= 0,
      let digest = meta["bodySha256"]?.stringValue, let bodyFile = bodyPath(key, generation),
      let body = try? StateFiles.read(bodyFile, limit: bytes),
      body.count == bytes, body.count > 1 << 20 || SHA256.hex(body) == digest
    else {
      return nil
    }
    var headers = HTTPHeaders()
    for (name, value) in ResponseCache.pairs(meta["headers"]) { headers.add(name, value) }
    var entry = Entry(
      key: key, name: meta["name"]?.stringValue ?? "", status: status,
      httpVersion: meta["httpVersion"]?.stringValue ?? "HTTP/1.1", headers: headers, body: body,
      url: meta["url"]?.stringValue ?? "", createdAt: Date(timeIntervalSince1970: created),
      expiresAt: Date(timeIntervalSince1970: expires), version: meta["version"]?.intValue ?? 0,
      sensitiveDigest: meta["sensitive"]?.stringValue, appVersion: meta["appVersion"]?.stringValue ?? "",
      namespaceDigest: meta["namespace"]?.stringValue, mustRevalidate: meta["mustRevalidate"]?.boolValue ?? false,
      varyValues: ResponseCache.pairs(meta["vary"]).map { (name: $0.0, value: $0.1) }, generation: generation)
    entry.effectiveURL = meta["effectiveURL"]?.stringValue ?? entry.url
    entry.redirectCount = meta["redirectCount"]?.intValue ?? 0
    entry.stamp = stamp
    if remember { self.remember(entry) }
    return entry
  }

  /// `[["name", "value"], …]` from metadata.
  static func pairs(_ value: JSONValue?) -> [(String, String)] {
    (value?.arrayValue ?? []).compactMap { field in
      guard let pair = field.arrayValue, pair.count == 2, let name = pair[0].stringValue,
        let value = pair[1].stringValue
      else { return nil }
      return (name, value)
    }
  }

  /// Removes an entry and every body of its key, whatever is there: `clear` and the size limit.
  func remove(_ key: String) {
    if let generation = read(key, remember: false)?.generation, let body = bodyPath(key, generation) { unlink(body) }
    unlink(metadataPath(key))
    removeBodies(of: key, except: nil)
    forget(key)
  }

  /// Removes `key`'s entry only if it is still the one that was looked at (generation `seen`;
  /// nil: an unreadable one), safely against a store of the same key running at that moment in
  /// this process or another: the metadata is first renamed aside (atomic), then checked; an
  /// entry written in between is put back (with `link`, which never replaces an even newer one).
  /// The sweep and lookups use it; never a fresh entry is lost, never metadata left without its
  /// body.
  func retire(_ key: String, seen: String?) {
    let aside = folder.path + "/.\(key).json.tmp-retired-\(String(UInt64.random(in: .min ... .max), radix: 16))"
    guard rename(metadataPath(key), aside) == 0 else { return }
    let found = ResponseCache.generation(inMetadataAt: aside)
    if found == seen {
      unlink(aside)
      if let seen, let body = bodyPath(key, seen) { unlink(body) }
      forget(key)
    } else {
      if link(aside, metadataPath(key)) != 0, let found {
        // An even newer entry is in place: the one set aside is stale.
        if ResponseCache.generation(inMetadataAt: metadataPath(key)) != found, let body = bodyPath(key, found) { unlink(body) }
      }
      unlink(aside)
    }
  }

  /// The generation a metadata file names, nil when it does not read as metadata.
  static func generation(inMetadataAt path: String) -> String? {
    guard let data = try? StateFiles.read(path, limit: metadataLimit),
      case .object(let meta)? = try? JSONParser.parse(data), meta["format"]?.intValue == ResponseCache.format
    else { return nil }
    return meta["generation"]?.stringValue
  }

  func forget(_ key: String) {
    lock.withLock {
      if let entry = memory.removeValue(forKey: key) { memoryBytes -= entry.body.count }
      memoryOrder.removeAll { $0 == key }
      index?[key] = nil
    }
  }

  /// Bodies of any generation of `key` (a write killed half-way leaves one behind).
  func removeBodies(of key: String, except keep: String?) {
    for name in StateFiles.list(folder.path)
    where name.hasPrefix(key + ".") && name.hasSuffix(".body") && name != keep.map({ "\(key).\($0).body" }) {
      unlink(folder.path + "/" + name)
    }
  }

  // MARK: - Memory LRU and the size limit

  func remember(_ entry: Entry) {
    guard entry.body.count <= memoryLimit / 4 else { return }
    lock.withLock {
      if let old = memory[entry.key] { memoryBytes -= old.body.count }
      memory[entry.key] = entry
      memoryBytes += entry.body.count
      memoryOrder.removeAll { $0 == entry.key }
      memoryOrder.append(entry.key)
      while memoryBytes > memoryLimit, let oldest = memoryOrder.first {
        memoryOrder.removeFirst()
        if let evicted = memory.removeValue(forKey: oldest) { memoryBytes -= evicted.body.count }
      }
    }
  }

  func touch(_ key: String) {
    lock.withLock {
      memoryOrder.removeAll { $0 == key }
      memoryOrder.append(key)
    }
  }

  /// A lookup found the entry: it is the most recently used, here and, through its body file's
  /// modification time, for the next process that builds the index.
  /// The file is touched at most once a minute per entry: the order across processes needs no
  /// finer grain, and a hit from memory then costs no system call.
  func markUsed(_ key: String, generation: String) {
    let now = Date()
    let touch = lock.withLock { () -> Bool in
      index?[key]?.used = now
      guard now.timeIntervalSince(touchedAt[key] ?? .distantPast) >= 60 else { return false }
      touchedAt[key] = now
      return true
    }
    if touch, let body = bodyPath(key, generation) { utimensat(AT_FDCWD, body, nil, AT_SYMLINK_NOFOLLOW) }
  }

  /// Records a stored entry's size; evicts the least recently used entries over the limit.
  func trackStored(_ key: String, bytes: Int) {
    let victims: [String] = lock.withLock {
      if index == nil {
        var built: [String: (bytes: Int, used: Date)] = [:]
        for name in StateFiles.list(folder.path) where name.hasSuffix(".body") {
          let parts = name.split(separator: ".")
          guard let first = parts.first else { continue }
          let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
          let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
          let used = attributes?[.modificationDate] as? Date ?? .distantPast
          built[String(first)] = (size, used)
        }
        index = built
      }
      index?[key] = (bytes, Date())
      var total = index?.values.reduce(0) { $0 + $1.bytes } ?? 0
      var evict: [String] = []
      for (candidate, info) in (index ?? [:]).sorted(by: { $0.value.used < $1.value.used }) where total > sizeLimit {
        guard candidate != key else { continue }
        evict.append(candidate)
        total -= info.bytes
      }
      return evict
    }
    for key in victims { remove(key) }
  }
}
