import Foundation
import History
import RequestEngine
import Workspace

/// `reqbench export har`: prepared requests (variables filled in) as a HAR 1.2 log, one entry
/// each, for tools that read HAR (a browser's network panel, Insomnia, a proxy). Nothing was
/// sent, so each entry's response is HAR's "no response" (status 0, as browsers write a request
/// that got none); `history --har` writes exchanges with their responses (`HARExport`).
///
/// ```swift
/// let har = HARRequestExporter.har(for: [request], revealSecrets: false, date: Date())
/// JSONSerializer.pretty(har)  // {"log": {"version": "1.2", "creator": …, "entries": [{"request": …}]}}
/// ```
/// Secrets are masked (`••••`) unless `revealSecrets`. Headers are the request's, with the
/// `Content-Type` of its body and reqbench's `User-Agent` when it sets none (what is sent); a
/// text body is `postData.text`, a binary one base64 (said in its `comment`), multipart parts
/// `postData.params`, a file body its path in the `comment` (its bytes stay on disk).
public enum HARRequestExporter {
  public static func har(
    for requests: [Request], revealSecrets: Bool, date: Date = Date(),
    userAgent: String = Agent.Configuration.defaultUserAgent
  ) -> JSONValue {
    let entries = requests.map { request -> JSONValue in
      let request = revealSecrets ? request : request.redacted()
      let noResponse = JSONObject([
        ("status", .number(0)), ("statusText", ""), ("httpVersion", ""), ("cookies", []), ("headers", []),
        ("content", .object(JSONObject([("size", .number(0)), ("mimeType", "x-unknown")]))),
        ("redirectURL", ""), ("headersSize", .number(-1)), ("bodySize", .number(-1)),
      ])
      return .object(JSONObject([
        ("startedDateTime", .string(HARExport.iso8601(date))), ("time", .number(0)),
        ("request", .object(self.request(request, userAgent: userAgent))), ("response", .object(noResponse)),
        ("cache", .object(JSONObject())),
        ("timings", .object(JSONObject([("send", .number(0)), ("wait", .number(0)), ("receive", .number(0))]))),
        ("comment", .string(request.name)),
      ]))
    }
    return .object(JSONObject([
      ("log", .object(JSONObject([
        ("version", "1.2"),
        ("creator", .object(JSONObject([("name", "reqbench"), ("version", .string(reqbenchVersion))]))),
        ("entries", .array(entries)),
      ]))),
    ]))
  }

  private static func request(_ request: Request, userAgent: String) -> JSONObject {
    var headers = request.headers
    let body = request.body
    if !headers.contains("Content-Type"), let type = body.contentType { headers.add("Content-Type", type) }
    if !headers.contains("User-Agent") { headers.add("User-Agent", userAgent) }
    var object = JSONObject([
      ("method", .string(request.method.rawValue)), ("url", .string(request.url)), ("httpVersion", "HTTP/1.1"),
      ("cookies", .array(HARExport.cookies(headers["Cookie"]))), ("headers", HARExport.headers(headers)),
      ("queryString", .array(HARExport.query(request.url))), ("headersSize", .number(-1)),
      ("bodySize", .number(body.stream == nil ? body.bytes.count : -1)),
    ])
    switch body.stream {
    case .file(let path)?:
      object["postData"] = .object(JSONObject([
        ("mimeType", .string(body.contentType ?? "application/octet-stream")), ("text", ""),
        ("comment", .string("the bytes of the file \(path)")),
      ]))
    case .multipart(let parts)?:
      let params = parts.map { part -> JSONValue in
        var param = JSONObject([("name", .string(part.name))])
        if let value = part.value { param["value"] = .string(value) }
        if let file = part.file { param["fileName"] = .string(part.filename ?? (file as NSString).lastPathComponent) }
        if let type = part.contentType { param["contentType"] = .string(type) }
        return .object(param)
      }
      object["postData"] = .object(JSONObject([("mimeType", "multipart/form-data"), ("params", .array(params))]))
    case nil:
      guard !body.bytes.isEmpty || body.contentType != nil else { break }
      var post = JSONObject([("mimeType", .string(body.contentType ?? ""))])
      if let text = String(validating: body.bytes, as: UTF8.self) {
        post["text"] = .string(text)
      } else {
        // HAR 1.2 has no encoding for request bodies: base64, said in the comment.
        post["text"] = .string(Data(body.bytes).base64EncodedString())
        post["comment"] = "base64"
      }
      object["postData"] = .object(post)
    }
    return object
  }
}
