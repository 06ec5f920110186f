import Foundation
import RequestEngine
import Workspace

/// The history of reqbench before `history.sqlite`: a folder per request under `STATE/history/`,
/// a file per exchange, read once to move it into the database (`HistoryMigration`).
///
/// ```text
/// history/
///   users%2Fget/                                  one folder per request name, percent-encoded
///     20261130T014636.123456Z-42-9f3a61c0.entry   one file per exchange
///     20261130T014701.002115Z-57-0c1d2e3f.entry
///     20261130T014701.002115Z-57-0c1d2e3f.body    its response body, when above 1 MB
/// ```
/// An entry file is one line of JSON metadata (format version 1), a newline, the request body,
/// then the response body when it was at most 1 MB (larger ones are `ID.body`):
///
/// ```json
/// {"version":1,"id":"20261130T014636.123456Z-42-9f3a61c0","name":"users/get","exchange":42,
///  "state":"failed","queuedAt":1796003196.1,"startedAt":1796003196.101,
///  "finishedAt":1796003196.123,
///  "attempts":1,"fromCache":false,"deduplicated":false,
///  "request":{"method":"GET","url":"http://127.0.0.1:8080/users/1","headers":[["Accept","*/*"]],
///             "contentType":null,"bodyBytes":0},
///  "response":{"status":500,"httpVersion":"HTTP/1.1","headers":[["Content-Length","10"]],
///              "effectiveURL":"http://127.0.0.1:8080/users/1","redirectCount":0,
///              "timing":{"dns":0.0001,"connect":0.0002,"tls":0,"firstByte":0.002,"total":0.0021},
///              "bytesSent":0,"body":{"bytes":10,"stored":"inline","storedBytes":10}},
///  "error":{"kind":"status","message":"status 500 is outside 200-299","status":500,"path":null}}
/// ```
/// Times are seconds since 1970 (UTC). `response` is null when the server never answered;
/// `body.stored` is `inline`, `file` or `dropped`; `body.bytes` is the size as received,
/// `body.storedBytes` the size as stored (secrets masked), which the file sizes are checked
/// against (an entry without it stores `bytes`).
enum LegacyHistory {
  static let formatVersion = 1
  static let entrySuffix = ".entry"
  static let bodySuffix = ".body"
  /// The longest metadata line read; a longer one is damage.
  static let metadataLimit = 8 << 20

  /// One entry file read back whole.
  struct Entry {
    var entry: HistoryEntry
    var requestBody: [UInt8]
    var responseBody: ResponseBody

    enum ResponseBody {
      case none
      case inline([UInt8])
      /// `ID.body` beside the entry file.
      case file(path: String)
    }
  }

  /// The entry files under `root` (`STATE/history`), in no particular order; temporary files of
  /// interrupted writes are left out.
  static func entryFiles(in root: String) -> [String] {
    var files: [String] = []
    for folder in HistoryFiles.list(root) where !folder.hasPrefix(".") {
      let path = root + "/" + folder
      guard HistoryFiles.isDirectory(path) else { continue }
      for name in HistoryFiles.list(path)
      where name.hasSuffix(entrySuffix) && !HistoryFiles.isTemporary(name) {
        files.append(path + "/" + name)
      }
    }
    return files
  }

  /// The entry file at `path` with its bodies, checked against the sizes it records; nil when it
  /// is damaged, truncated, lacks its body file or was written by a newer format.
  static func read(_ path: String) -> Entry? {
    guard let first = HistoryFiles.readFirstLine(path, limit: metadataLimit) else { return nil }
    let name = String(path.split(separator: "/").last ?? "")
    let id = String(name.dropLast(entrySuffix.count))
    // The id names the body file too: only a key reqbench makes.
    guard StateFiles.isValidName(id) else { return nil }
    guard case .entry(var entry, let stored) = decode(line: first.line, id: id) else { return nil }
    let requestOffset = first.line.count + 1
    var expected = requestOffset + entry.requestBodyBytes
    if stored == .inline { expected += entry.storedBodyBytes }
    guard first.fileSize == expected,
      let requestBody = try? HistoryFiles.read(path, offset: requestOffset, count: entry.requestBodyBytes)
    else { return nil }
    var body = Entry.ResponseBody.none
    switch stored {
    case .inline:
      if entry.storedBodyBytes > 0 {
        guard let bytes = try? HistoryFiles.read(
          path, offset: requestOffset + entry.requestBodyBytes, count: entry.storedBodyBytes)
        else { return nil }
        body = .inline(bytes)
      }
    case .file:
      let bodyPath = String(path.dropLast(entrySuffix.count)) + bodySuffix
      guard let file = HistoryFiles.regularFile(bodyPath), file.size == entry.storedBodyBytes else {
        return nil
      }
      body = .file(path: bodyPath)
    case .dropped:
      break
    }
    entry.storage = HistoryEntry.Storage(row: 0, responseBody: stored)
    return Entry(entry: entry, requestBody: requestBody, responseBody: body)
  }

  /// What reading an entry file's metadata line gave.
  enum Decoded {
    case entry(HistoryEntry, HistoryEntry.ResponseBodyStorage)
    /// Written by a newer reqbench: left alone.
    case newerVersion
    /// Not a valid entry: ignored and removed.
    case corrupt
  }

  /// Reads a metadata line. `id` is the file's name without `.entry`.
  static func decode(line: [UInt8], id: String) -> Decoded {
    guard let root = try? JSONParser.parse(line), let object = root.objectValue,
      let version = object["version"]?.intValue
    else { return .corrupt }
    if version > formatVersion { return .newerVersion }
    guard version == formatVersion, object["id"]?.stringValue == id else { return .corrupt }
    return entry(object, id: id).map { .entry($0.0, $0.1) } ?? .corrupt
  }

  private static func entry(_ object: JSONObject, id: String)
    -> (HistoryEntry, HistoryEntry.ResponseBodyStorage)?
  {
    guard let name = object["name"]?.stringValue,
      let exchange = object["exchange"].flatMap(uint64),
      let state = object["state"]?.stringValue.flatMap(ExchangeState.init(rawValue:)),
      state.isTerminal,
      let queuedAt = object["queuedAt"].flatMap(date),
      let finishedAt = object["finishedAt"].flatMap(date),
      let attempts = object["attempts"]?.intValue, attempts >= 0,
      let request = object["request"]?.objectValue,
      let method = request["method"]?.stringValue.flatMap(HTTPMethod.init(rawValue:)),
      let url = request["url"]?.stringValue,
      let requestHeaders = request["headers"].flatMap(headers),
      let requestBodyBytes = request["bodyBytes"]?.intValue, requestBodyBytes >= 0
    else { return nil }
    var startedAt: Date?
    if let value = object["startedAt"], !value.isNull {
      guard let started = date(value) else { return nil }
      startedAt = started
    }
    var contentType: String?
    if let value = request["contentType"], !value.isNull {
      guard let text = value.stringValue else { return nil }
      contentType = text
    }

    var entry = HistoryEntry(
      id: id, name: name, exchangeID: ExchangeID(rawValue: exchange), date: finishedAt,
      queuedAt: queuedAt, startedAt: startedAt, method: method, url: url,
      requestHeaders: requestHeaders, requestContentType: contentType,
      requestBodyBytes: requestBodyBytes, state: state, status: nil, httpVersion: nil,
      responseHeaders: HTTPHeaders(), effectiveURL: nil, redirectCount: 0, timing: nil,
      bytesSent: 0, bytes: 0, storedBodyBytes: 0, bodyKept: true, error: nil, attempts: attempts,
      fromCache: object["fromCache"]?.boolValue ?? false,
      deduplicated: object["deduplicated"]?.boolValue ?? false, storedBytes: 0,
      storage: HistoryEntry.Storage(row: 0, responseBody: .inline))
    var stored = HistoryEntry.ResponseBodyStorage.inline

    if let value = object["response"], !value.isNull {
      guard let response = value.objectValue,
        let status = response["status"]?.intValue,
        let headers = response["headers"].flatMap(headers),
        let body = response["body"]?.objectValue,
        let bytes = body["bytes"]?.intValue, bytes >= 0,
        let storage = body["stored"]?.stringValue.flatMap(HistoryEntry.ResponseBodyStorage.init(rawValue:)),
        (0...999).contains(status)
      else { return nil }
      stored = storage
      entry.status = status
      entry.httpVersion = response["httpVersion"]?.stringValue
      entry.responseHeaders = headers
      entry.effectiveURL = response["effectiveURL"]?.stringValue
      entry.redirectCount = response["redirectCount"]?.intValue ?? 0
      if let timing = response["timing"]?.objectValue {
        entry.timing = Timing(
          dns: timing["dns"]?.doubleValue ?? 0, connect: timing["connect"]?.doubleValue ?? 0,
          tls: timing["tls"]?.doubleValue ?? 0, firstByte: timing["firstByte"]?.doubleValue ?? 0,
          total: timing["total"]?.doubleValue ?? 0)
      }
      entry.bytesSent = response["bytesSent"].flatMap(uint64).map { Int64(clamping: $0) } ?? 0
      entry.bytes = bytes
      if let value = body["storedBytes"] {
        guard let storedBytes = value.intValue, storedBytes >= 0 else { return nil }
        entry.storedBodyBytes = storedBytes
      } else {
        entry.storedBodyBytes = stored == .dropped ? 0 : bytes
      }
      entry.bodyKept = stored != .dropped
    }

    if let value = object["error"], !value.isNull {
      guard let error = value.objectValue,
        let kind = error["kind"]?.stringValue.flatMap(ExchangeError.Kind.init(rawValue:)),
        let message = error["message"]?.stringValue
      else { return nil }
      entry.error = ExchangeError(
        kind: kind, message: message, status: error["status"]?.intValue,
        path: error["path"]?.stringValue)
    }
    return (entry, stored)
  }

  private static func uint64(_ value: JSONValue) -> UInt64? {
    guard case .number(let text) = value else { return nil }
    return UInt64(text)
  }

  private static func date(_ value: JSONValue) -> Date? {
    guard let seconds = value.doubleValue, seconds >= 0, seconds <= HistoryRow.latestTime else {
      return nil
    }
    return Date(timeIntervalSince1970: seconds)
  }

  private static func headers(_ value: JSONValue) -> HTTPHeaders? {
    guard let pairs = value.arrayValue else { return nil }
    var headers = HTTPHeaders()
    for pair in pairs {
      guard let items = pair.arrayValue, items.count == 2, let name = items[0].stringValue,
        let value = items[1].stringValue
      else { return nil }
      headers.add(name, value)
    }
    return headers
  }
}
