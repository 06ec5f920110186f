/// CR, LF and NUL in the text that becomes a request's lines on the wire (the method, the URL,
/// header names and values): a value holding `\r\n` would end its header line and add headers of
/// its own (header injection). One check for every place that looks: the workspace reader for
/// literal values (at load, with FILE:LINE:COLUMN), request preparation for filled-in values
/// (naming where the value came from) and the engine, last, where a request becomes curl options,
/// so nothing with CR, LF or NUL ever reaches curl, whoever built the request.
///
/// ```swift
/// LineBreaks.find(in: "ab\r\nX-Injected: 1")  // .carriageReturn
/// LineBreaks.problem(in: "ab\r\nX-Injected: 1", what: #"header "X-K""#)
/// // header "X-K" contains CR (\r); CR, LF and NUL are not allowed in methods, URLs and headers:
/// // they would end the line on the wire
/// ```
public enum LineBreaks {
  /// A character that may not appear in a request line or header line.
  public enum Character: Sendable, Equatable, CustomStringConvertible {
    case carriageReturn, lineFeed, nul

    /// `CR (\r)`, `LF (\n)`, `NUL (\0)`.
    public var description: String {
      switch self {
      case .carriageReturn: #"CR (\r)"#
      case .lineFeed: #"LF (\n)"#
      case .nul: #"NUL (\0)"#
      }
    }
  }

  /// The rule, said once after the problem.
  public static let rule = "CR, LF and NUL are not allowed in methods, URLs and headers: they would end the line on the wire"

  /// The first CR, LF or NUL in `text`; nil when there is none (the usual case: one pass over
  /// the UTF-8 bytes).
  public static func find(in text: String) -> Character? {
    for byte in text.utf8 {
      switch byte {
      case 0x0D: return .carriageReturn
      case 0x0A: return .lineFeed
      case 0x00: return .nul
      default: continue
      }
    }
    return nil
  }

  /// `WHAT contains CR (\r); RULE`, or nil when `text` is clean. `what` names the field
  /// (`header "X-K"`, `the name of header "X\r"`, `url`, `method`), with any quoting done by the
  /// caller; made only when there is a problem (every header of every request is checked).
  public static func problem(in text: String, what: @autoclosure () -> String) -> String? {
    find(in: text).map { "\(what()) contains \($0); \(rule)" }
  }
}

extension Request {
  /// The first part of this request that would not survive the wire as one line: its URL, a
  /// header name or value, the body's content type (sent as a header), a multipart part's name,
  /// file name or type (part headers) or the Digest user name. Nil when there is none.
  ///
  /// The engine refuses such a request before curl sees it (a `usage` error); preparation and
  /// the workspace reader find them earlier, with more to say about where the text came from.
  public func lineBreakProblem() -> String? {
    if let problem = LineBreaks.problem(in: url, what: "url") { return problem }
    for field in headers.fields {
      if let problem = LineBreaks.problem(in: field.name, what: "the name of header \(JSONSerializer.quote(field.name))") {
        return problem
      }
      if let problem = LineBreaks.problem(in: field.value, what: "header \(JSONSerializer.quote(field.name))") {
        return problem
      }
    }
    if let type = body.contentType, let problem = LineBreaks.problem(in: type, what: "the body's content type") {
      return problem
    }
    if case .multipart(let parts)? = body.stream {
      for (i, part) in parts.enumerated() {
        for (text, what) in [(part.name, "name"), (part.filename, "file name"), (part.contentType, "content type")] {
          if let text, let problem = LineBreaks.problem(in: text, what: "the \(what) of multipart part \(i + 1)") {
            return problem
          }
        }
      }
    }
    if let user = digest?.user, let problem = LineBreaks.problem(in: user, what: "the digest user name") {
      return problem
    }
    return nil
  }
}

extension Request {
  /// The most bytes of request line and headers curl sends (libcurl builds the head in a buffer of
  /// 1 MiB and fails with "out of memory" past it, before a byte is sent), less room for what
  /// curl adds itself (Host, Accept-Encoding, a small body sent with the head).
  public static let maxHeadBytes = 1_000_000

  /// Why this request's head (URL and headers) is more than curl sends, naming its largest
  /// header; nil when it fits. A 2 MB token in a header is the request's problem, said before
  /// anything is sent, not a response curl "stopped reading".
  public func headSizeProblem() -> String? {
    var total = method.rawValue.utf8.count + url.utf8.count + 12
    var largest: (name: String, bytes: Int)?
    for field in headers.fields {
      let bytes = field.name.utf8.count + field.value.utf8.count + 4
      total += bytes
      if bytes > (largest?.bytes ?? 0) { largest = (field.name, bytes) }
    }
    guard total > Self.maxHeadBytes else { return nil }
    let size = { (bytes: Int) in String(format: "%.1f MB", Double(bytes) / 1_048_576) }
    var message = "the request's URL and headers are \(size(total)), more than curl sends (1 MB in all)"
    if let largest, largest.bytes * 2 > total {
      message += ": header \(JSONSerializer.quote(largest.name)) alone is \(size(largest.bytes))"
    } else if url.utf8.count * 2 > total {
      message += ": the URL alone is \(size(url.utf8.count))"
    }
    return message + "; nothing was sent"
  }
}
