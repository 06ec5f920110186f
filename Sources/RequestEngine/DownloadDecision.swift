import Foundation

/// What to do with a download response, decided from its status and headers alone
/// (docs/engine-rules.md, "Resumable downloads").
enum DownloadDecision: Equatable {
  /// Write the body at `offset`; `offset == 0` truncates what was on disk.
  case write(offset: Int64, total: Int64?, restartReason: RestartReason?)
  /// 416 and the whole resource is already on disk.
  case alreadyComplete(total: Int64)
  /// Drop this response and send again from byte 0.
  case restart(RestartReason)
  /// An HTTP error (or an unfollowed redirect): the body is an error body; the file is untouched.
  case failure

  /// - Parameters:
  ///   - offset: the bytes on disk a `Range: bytes=offset-` asked to continue from; 0 when the
  ///     request carried no Range.
  ///   - stored: the validators the partial data was fetched with.
  static func decide(status: Int, headers: HTTPHeaders, offset: Int64, stored: Validators) -> DownloadDecision {
    let contentLength = headers["Content-Length"].flatMap { Int64($0) }
    if offset == 0 {
      return (200..<300).contains(status) ? .write(offset: 0, total: contentLength, restartReason: nil) : .failure
    }
    switch status {
    case 206:
      // A server that ignores If-Range may send another resource's bytes as a 206: they are
      // appended only when the response's validator is the one the partial data was fetched with.
      guard stored.matches(Validators(headers: headers)) else { return .restart(.resourceChanged) }
      guard let range = ContentRange(headers["Content-Range"]), let start = range.start, start == offset else {
        return .restart(.badContentRange)
      }
      return .write(offset: offset, total: range.length, restartReason: nil)
    case 416:
      guard let length = ContentRange(headers["Content-Range"])?.length else { return .restart(.badContentRange) }
      if length == offset { return .alreadyComplete(total: length) }
      return .restart(length < offset ? .resourceChanged : .badContentRange)
    case 200..<300:
      let changed = stored.differs(from: Validators(headers: headers))
      return .write(offset: 0, total: contentLength, restartReason: changed ? .resourceChanged : .rangeNotSupported)
    default:
      return .failure
    }
  }
}

/// A resource's validators, as far as resuming cares.
struct Validators: Equatable, Codable {
  var etag: String?
  var lastModified: String?

  init(etag: String? = nil, lastModified: String? = nil) {
    self.etag = etag
    self.lastModified = lastModified
  }

  init(headers: HTTPHeaders) {
    self.init(etag: headers["ETag"], lastModified: headers["Last-Modified"])
  }

  /// What `If-Range` carries: a strong ETag, else the Last-Modified date (a weak ETag cannot be
  /// used for ranges, RFC 9110 §13.1.5); nil when neither is usable.
  var ifRange: String? {
    if let etag, !etag.hasPrefix("W/") { return etag }
    return lastModified
  }

  /// Whether a 206 answers for the same resource: it carries the validator `If-Range` was sent
  /// with (the strong ETag, else Last-Modified), unchanged. Without a stored validator (a resume
  /// that trusts the length) there is nothing to compare and it passes.
  func matches(_ response: Validators) -> Bool {
    if let etag, !etag.hasPrefix("W/") { return response.etag == etag }
    if let lastModified { return response.lastModified == lastModified }
    return true
  }

  /// Whether a new response's validators show a different resource.
  func differs(from other: Validators) -> Bool {
    if let etag, let newTag = other.etag { return etag != newTag }
    if let lastModified, let newDate = other.lastModified { return lastModified != newDate }
    return false
  }
}

/// `Content-Range: bytes S-E/L`, `bytes */L` or `bytes S-E/*`.
struct ContentRange: Equatable {
  var start: Int64?
  var end: Int64?
  var length: Int64?

  init?(_ value: String?) {
    guard let value else { return nil }
    let trimmed = value.trimmingWhitespace()
    guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
    let spec = String(trimmed.dropFirst(6)).trimmingWhitespace()
    let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard halves.count == 2 else { return nil }
    if halves[1] != "*" {
      guard let length = Int64(halves[1]) else { return nil }
      self.length = length
    }
    if halves[0] != "*" {
      let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
      guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end else {
        return nil
      }
      self.start = start
      self.end = end
    } else if length == nil {
      return nil
    }
  }
}
