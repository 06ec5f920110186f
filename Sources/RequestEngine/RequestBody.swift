import Foundation

/// What a request sends as its body: bytes with a content type (JSON, form and text bodies are
/// serialized by `RequestBody.json`, `.form` and `.text` into bytes up front), or a stream read
/// from disk while it is sent (`.file`, `.multipart`), never held in memory.
public struct RequestBody: Sendable, Equatable, Hashable {
  /// The body when it is in memory; empty for a streamed body.
  public var bytes: [UInt8]
  /// Sent as `Content-Type` unless the request's headers set one. Multipart bodies get curl's
  /// `multipart/form-data; boundary=…`.
  public var contentType: String?
  /// Set for a body streamed from disk.
  public var stream: BodyStream?

  public init(bytes: [UInt8], contentType: String?) {
    self.bytes = bytes
    self.contentType = contentType
  }

  public static let empty = RequestBody(bytes: [], contentType: nil)

  public var isEmpty: Bool { bytes.isEmpty && contentType == nil && stream == nil }

  /// A file's bytes, streamed (`application/octet-stream` unless a content type is given).
  public static func file(_ path: String, contentType: String? = nil) -> RequestBody {
    var body = RequestBody(bytes: [], contentType: contentType ?? "application/octet-stream")
    body.stream = .file(path: path)
    return body
  }

  /// `multipart/form-data` with fields and streamed file parts, in order.
  public static func multipart(_ parts: [MultipartPart]) -> RequestBody {
    var body = RequestBody(bytes: [], contentType: nil)
    body.stream = .multipart(parts)
    return body
  }

  /// A compact JSON body, `Content-Type: application/json`.
  public static func json(_ value: JSONValue) -> RequestBody {
    RequestBody(bytes: Array(JSONSerializer.compact(value).utf8), contentType: "application/json")
  }

  /// An `application/x-www-form-urlencoded` body, fields in the given order.
  public static func form(_ fields: [(String, String)]) -> RequestBody {
    let encoded = fields.map { QueryEncoder.encodeComponent($0.0) + "=" + QueryEncoder.encodeComponent($0.1) }
    return RequestBody(
      bytes: Array(encoded.joined(separator: "&").utf8),
      contentType: "application/x-www-form-urlencoded")
  }

  /// A text body; `text/plain; charset=utf-8` unless a content type is given.
  public static func text(_ text: String, contentType: String? = nil) -> RequestBody {
    RequestBody(bytes: Array(text.utf8), contentType: contentType ?? "text/plain; charset=utf-8")
  }
}

/// A body read from disk while it is sent.
public enum BodyStream: Sendable, Equatable, Hashable {
  /// The bytes of the file at `path`.
  case file(path: String)
  /// `multipart/form-data` (curl_mime): fields and files in order.
  case multipart([MultipartPart])

  /// The files this body reads.
  public var files: [String] {
    switch self {
    case .file(let path): [path]
    case .multipart(let parts): parts.compactMap(\.file)
    }
  }

  /// Why the existing `path` cannot be sent as a body (`"a folder"`, `"not a regular file"`), or
  /// nil for a regular file or one that does not exist. A folder reads as nothing (or an error
  /// after the idle timeout); a pipe or a device never ends.
  public static func notAFile(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return nil }
    return info.st_mode & S_IFMT == S_IFDIR ? "a folder" : "not a regular file"
  }

  /// What identifies the body for the cache and de-duplication keys without reading the files:
  /// the parts, and each file's path, size and modification time.
  public var fingerprint: String {
    func file(_ path: String) -> String {
      var info = stat()
      guard stat(path, &info) == 0 else { return path + " missing" }
      return "\(path) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
    switch self {
    case .file(let path):
      return "file " + file(path)
    case .multipart(let parts):
      return parts.map { part in
        [part.name, part.value.map { "value " + $0 }, part.file.map { "file " + file($0) }, part.filename, part.contentType]
          .map { $0 ?? "-" }.joined(separator: " | ")
      }.joined(separator: "\n")
    }
  }
}

/// One part of a multipart body: a text field, or a file streamed from disk.
public struct MultipartPart: Sendable, Equatable, Hashable {
  public var name: String
  /// A text field's value.
  public var value: String?
  /// A file part's path.
  public var file: String?
  /// The file name the server sees (default: the file's own name).
  public var filename: String?
  public var contentType: String?

  public static func field(_ name: String, _ value: String, contentType: String? = nil) -> MultipartPart {
    MultipartPart(name: name, value: value, file: nil, filename: nil, contentType: contentType)
  }

  public static func file(_ name: String, path: String, filename: String? = nil, contentType: String? = nil)
    -> MultipartPart
  {
    MultipartPart(name: name, value: nil, file: path, filename: filename, contentType: contentType)
  }
}
