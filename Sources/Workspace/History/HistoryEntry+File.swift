import Foundation
import RequestEngine

/// The entry file's first line: the entry's metadata as one line of compact JSON (format version
/// 1). The request body follows the line, then the response body when it is stored inline.
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
/// `body.stored` is `inline` (in the entry file), `file` (`ID.body`) or `dropped`; `body.bytes` is
/// the size as received, `body.storedBytes` the size as stored (secrets masked), which the entry
/// file's size or the body file's size is checked against (an entry without it stores `bytes`).
extension HistoryEntry {
  static let formatVersion = 1

  /// The metadata line, without its newline.
  func metadataLine() -> String {
    var request = JSONObject()
    request["method"] = .string(method.rawValue)
    request["url"] = .string(url)
    request["headers"] = Self.json(requestHeaders)
    request["contentType"] = requestContentType.map { .string($0) } ?? .null
    request["bodyBytes"] = .number(requestBodyBytes)

    var response: JSONValue = .null
    if let status {
      var object = JSONObject()
      object["status"] = .number(status)
      object["httpVersion"] = .string(httpVersion ?? "")
      object["headers"] = Self.json(responseHeaders)
      object["effectiveURL"] = .string(effectiveURL ?? "")
      object["redirectCount"] = .number(redirectCount)
      if let timing {
        object["timing"] = .object(
          JSONObject([
            ("dns", .number(timing.dns)), ("connect", .number(timing.connect)),
            ("tls", .number(timing.tls)), ("firstByte", .number(timing.firstByte)),
            ("total", .number(timing.total)),
          ]))
      }
      object["bytesSent"] = .number(String(bytesSent))
      object["body"] = .object(
        JSONObject([
          ("bytes", .number(bytes)), ("stored", .string(location.responseBody.rawValue)),
          ("storedBytes", .number(storedBodyBytes)),
        ]))
      response = .object(object)
    }

    var failure: JSONValue = .null
    if let error {
      failure = .object(
        JSONObject([
          ("kind", .string(error.kind.rawValue)), ("message", .string(error.message)),
          ("status", error.status.map { .number($0) } ?? .null),
          ("path", error.path.map { .string($0) } ?? .null),
        ]))
    }

    let object = JSONObject([
      ("version", .number(Self.formatVersion)),
      ("id", .string(id)),
      ("name", .string(name)),
      ("exchange", .number(String(exchangeID.rawValue))),
      ("state", .string(state.rawValue)),
      ("queuedAt", .number(queuedAt.timeIntervalSince1970)),
      ("startedAt", startedAt.map { .number($0.timeIntervalSince1970) } ?? .null),
      ("finishedAt", .number(date.timeIntervalSince1970)),
      ("attempts", .number(attempts)),
      ("fromCache", .bool(fromCache)),
      ("deduplicated", .bool(deduplicated)),
      ("request", .object(request)),
      ("response", response),
      ("error", failure),
    ])
    return JSONSerializer.compact(.object(object))
  }

  private static func json(_ headers: HTTPHeaders) -> JSONValue {
    .array(headers.fields.map { .array([.string($0.name), .string($0.value)]) })
  }

  /// What reading an entry file's metadata line gave.
  enum Decoded {
    case entry(HistoryEntry)
    /// Written by a newer reqbench: left alone.
    case newerVersion
    /// Not a valid entry: ignored and removed.
    case corrupt
  }

  /// Reads a metadata line. `id` is the file's name without `.entry`, `folder` its folder.
  static func decode(line: [UInt8], id: String, folder: String) -> Decoded {
    guard let root = try? JSONParser.parse(line), let object = root.objectValue,
      let version = object["version"]?.intValue
    else { return .corrupt }
    if version > formatVersion { return .newerVersion }
    guard version == formatVersion, object["id"]?.stringValue == id else { return .corrupt }
    return entry(object, id: id, folder: folder, lineLength: line.count).map { .entry($0) }
      ?? .corrupt
  }

  private static func entry(_ object: JSONObject, id: String, folder: String, lineLength: Int)
    -> HistoryEntry?
  {
    guard let name = object["name"]?.stringValue,
      let exchange = object["exchange"].flatMap(uint64),
      let state = object["state"]?.stringValue.flatMap(ExchangeState.init(rawValue:)),
      state.isTerminal,
      let queuedAt = object["queuedAt"].flatMap(date),
      let finishedAt = object["finishedAt"].flatMap(date),
      let attempts = object["attempts"]?.intValue,
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
      location: Location(folder: folder, requestBodyOffset: lineLength + 1, responseBody: .inline))

    if let value = object["response"], !value.isNull {
      guard let response = value.objectValue,
        let status = response["status"]?.intValue,
        let headers = response["headers"].flatMap(headers),
        let body = response["body"]?.objectValue,
        let bytes = body["bytes"]?.intValue, bytes >= 0,
        let stored = body["stored"]?.stringValue.flatMap(ResponseBodyStorage.init(rawValue:))
      else { return nil }
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
      entry.location.responseBody = stored
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
    return entry
  }

  private static func uint64(_ value: JSONValue) -> UInt64? {
    guard case .number(let text) = value else { return nil }
    return UInt64(text)
  }

  private static func date(_ value: JSONValue) -> Date? {
    guard let seconds = value.doubleValue, seconds.isFinite else { return nil }
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
