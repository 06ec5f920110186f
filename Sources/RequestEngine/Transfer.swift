// Over 500 lines because it is one unit: one curl easy handle's attempt, whose C-owned buffers (header,
// resolve and body lists, the error buffer, the debug target) must be set up, read by the
// callbacks and freed in one place; the decisions it needs are pure functions elsewhere (a
// stream's events are StreamParser's, in EventStream.swift).
import Base
import CCurl
import Foundation

/// One attempt of an exchange on a curl easy handle. Lives on the engine thread only: created,
/// driven by curl's callbacks and read when curl reports it done.
final class Transfer {
  let handle: UnsafeMutableRawPointer
  private var headerList: UnsafeMutablePointer<curl_slist>?
  private var resolveList: UnsafeMutablePointer<curl_slist>?
  private var bodyBuffer: UnsafeMutableRawBufferPointer?
  private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
  /// Where curl's debug function hands the request heads it sends (see `sentHeads`).
  private let headOutTarget = UnsafeMutablePointer<rb_header_out_target>.allocate(capacity: 1)

  // Filled by callbacks.
  var responseHeaders = HTTPHeaders()
  var statusLine: Int = 0
  var headersComplete = false
  /// The request heads curl wrote, for `SentRequest`.
  private(set) var sentHeads = SentHeads()
  private(set) var sink: BodySink
  var lastActivity: Double
  var lastProgressEmit: Double = 0
  var progress = TransferProgress()
  /// Bytes of a resumed download already on disk before this transfer.
  private var progressOffset: Int64 = 0
  let startedAt: Double
  /// The engine loop's clock: callbacks, hundreds per loop, read it instead of the system clock.
  private let clock: LoopClock
  /// Where the easy handle came from and goes back to.
  private let handles: EasyHandlePool
  let idleTimeout: Double
  let followRedirects: Bool
  private let isHead: Bool
  var timedOutIdle = false
  /// The response body passed the request's limit (`maxBodyMB`): curl was stopped.
  private(set) var bodyOverLimit = false
  /// The jar whose share this transfer's handle is attached to (kept alive while it is).
  let cookieJar: CookieJar?
  /// A `Set-Cookie` arrived on this transfer: curl may have changed the jar.
  private(set) var receivedSetCookie = false
  /// Where a download's body goes (nil: into `sink`).
  let download: DownloadWriter?
  private var mime: OpaquePointer?
  private var uploadFile: UnsafeMutablePointer<FILE>?

  /// Called from callbacks for events the agent forwards.
  var onHeaders: ((Int, HTTPHeaders) -> Void)?
  var onProgress: ((TransferProgress) -> Void)?
  let progressInterval: Double
  /// The stream format the request forces (`Request.stream`); nil: the Content-Type decides.
  private let forcedStream: StreamFormat?
  /// Cuts the body into events, once the final response's headers say it is a stream.
  private(set) var streamParser: StreamParser?
  /// Asked for the parser when a stream begins (the engine carries the last event id and the
  /// event count over from an earlier connection of the same exchange).
  var makeStreamParser: ((StreamFormat) -> StreamParser)?
  var onStreamEvents: (([StreamEvent]) -> Void)?
  /// Where an event's `seconds` count from (the exchange's start, on the loop clock).
  var streamOrigin: Double

  struct SetupError: Error {
    let message: String
  }

  init(
    request: Request, configuration: Agent.Configuration, clock: LoopClock, handles: EasyHandlePool,
    download: DownloadWriter? = nil
  ) throws(SetupError) {
    let now = clock.now
    guard let handle = handles.take() else { throw SetupError(message: "cannot create a curl handle (out of memory)") }
    self.handle = handle
    self.handles = handles
    self.download = download
    self.sink = BodySink(
      memoryLimit: configuration.memoryBodyLimit, directory: configuration.spillDirectory,
      maxBytes: request.maxBodyBytes ?? configuration.maxBodyBytes)
    self.lastActivity = now
    self.startedAt = now
    self.clock = clock
    self.idleTimeout = request.timeouts.idle
    self.followRedirects = request.followRedirects
    self.isHead = request.method == .HEAD
    self.progressInterval = configuration.progressInterval
    self.cookieJar = request.cookieJar
    self.forcedStream = request.stream
    self.streamOrigin = now
    try configure(request, configuration)
  }

  deinit {
    // Detached before the handle is reset or reused: a pooled handle must not keep a jar's
    // share (curl_share_cleanup refuses a share in use).
    if cookieJar != nil { rb_easy_setopt_pointer(handle, CURLOPT_SHARE, nil) }
    handles.giveBack(handle)
    if let mime { curl_mime_free(mime) }
    if let uploadFile { fclose(uploadFile) }
    if let headerList { curl_slist_free_all(headerList) }
    if let resolveList { curl_slist_free_all(resolveList) }
    bodyBuffer?.deallocate()
    errorBuffer.deallocate()
    headOutTarget.deallocate()
    sink.discard()
  }

  /// curl's own words for the last error (CURLOPT_ERRORBUFFER).
  var errorMessage: String { String(cString: errorBuffer) }

  // MARK: - Options

  private func set(_ option: CURLoption, _ value: Int) {
    rb_easy_setopt_long(handle, option, value)
  }

  private func set(_ option: CURLoption, _ value: String) {
    // curl copies every string option set here (since 7.17.0): no copy of ours to keep alive.
    _ = value.withCString { rb_easy_setopt_pointer(handle, option, $0) }
  }

  private func configure(_ request: Request, _ configuration: Agent.Configuration) throws(SetupError) {
    // The last check before curl: nothing with CR, LF or NUL becomes a request line or header
    // line, whoever built the request (preparation reports these earlier, naming the source).
    if let problem = request.lineBreakProblem() { throw SetupError(message: problem) }
    if let problem = request.headSizeProblem() { throw SetupError(message: problem) }
    set(CURLOPT_URL, request.url)
    set(CURLOPT_NOSIGNAL, 1)
    errorBuffer.initialize(to: 0)
    rb_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
    set(CURLOPT_NOPROGRESS, 0)
    let me = Unmanaged.passUnretained(self).toOpaque()
    rb_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, transferWriteCallback)
    rb_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
    rb_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, transferHeaderCallback)
    rb_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
    rb_easy_setopt_xferinfo_callback(handle, transferProgressCallback)
    rb_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)
    headOutTarget.initialize(to: rb_header_out_target(callback: transferHeaderOutCallback, userdata: me))
    rb_easy_set_header_out(handle, headOutTarget)

    // Method and body. A HEAD with a body: curl would send it and then wait for a response
    // body a HEAD never gets (the workspace refuses one at load; this is for every caller).
    let body = request.body
    if request.method == .HEAD, body.stream != nil || !body.bytes.isEmpty {
      throw SetupError(message: "a HEAD request has no body; remove the body or use another method")
    }
    if let stream = body.stream {
      try attachStream(stream, method: request.method)
    } else {
      attachMethodAndBytes(request.method, body)
    }

    // Headers: the request's own (an empty value removes one curl adds itself, `Accept:`, and
    // sends any other empty, `X-Empty;`), then the body's content type unless set. A form body's
    // type is left to curl, which sends the same one after Content-Length, where the curl tool
    // sends it. `Expect: 100-continue` is curl's own rule, as the curl tool sends it (a PUT of a
    // file, a POST over 1 MB; a server that does not answer 100 gets the body after 1 s).
    var lines: [String] = []
    for field in request.headers {
      if field.value.isEmpty {
        lines.append(HTTPHeaders.isAddedByCurl(field.name) ? "\(field.name):" : "\(field.name);")
      } else {
        lines.append("\(field.name): \(field.value)")
      }
    }
    if !request.headers.contains("Content-Type") {
      if let type = body.contentType {
        if !request.curlAddsFormType {
          lines.append("Content-Type: \(type)")
        }
      } else if body.stream == nil && (request.method == .POST || !body.bytes.isEmpty) {
        lines.append("Content-Type:")  // curl would add x-www-form-urlencoded
      }
    }
    if let download {
      // Offsets must refer to stored bytes: no Accept-Encoding, and continue from what is on disk.
      if download.requestedOffset > 0 {
        set(CURLOPT_RANGE, "\(download.requestedOffset)-")
        if let ifRange = download.ifRange, !request.headers.contains("If-Range") {
          lines.append("If-Range: \(ifRange)")
        }
      }
      set(CURLOPT_BUFFERSIZE, 256 << 10)
    } else if request.compressed {
      // With an Accept-Encoding header of the request's own, curl sends that one and decodes.
      set(CURLOPT_ACCEPT_ENCODING, "")
    }
    for line in lines {
      // What the engine adds itself (If-Range from the resume state, the user agent) too.
      if let problem = LineBreaks.problem(in: line, what: "the header line \(JSONSerializer.quote(line))") {
        throw SetupError(message: problem)
      }
      headerList = curl_slist_append(headerList, line)
    }
    rb_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList)
    if !request.headers.contains("User-Agent") {
      if let problem = LineBreaks.problem(in: configuration.userAgent, what: "the agent's user agent") {
        throw SetupError(message: problem)
      }
      set(CURLOPT_USERAGENT, configuration.userAgent)
    }

    // Redirects, timeouts, TLS, HTTP version, proxy.
    // The engine follows redirects itself (Redirect: what goes to another origin is its rule,
    // not curl's); curl speaks http and https only, and would redirect only to them.
    set(CURLOPT_FOLLOWLOCATION, 0)
    set(CURLOPT_PROTOCOLS_STR, "http,https")
    set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    set(CURLOPT_CONNECTTIMEOUT_MS, Self.curlMilliseconds(request.timeouts.idle))
    if let deadline = request.timeouts.deadline { set(CURLOPT_TIMEOUT_MS, Self.curlMilliseconds(deadline)) }
    if request.insecure {
      set(CURLOPT_SSL_VERIFYPEER, 0)
      set(CURLOPT_SSL_VERIFYHOST, 0)
    }
    if let caFile = request.tls?.caFile { set(CURLOPT_CAINFO, caFile) }
    if let pin = request.tls?.pinnedPublicKey { set(CURLOPT_PINNEDPUBLICKEY, pin) }
    if let certificate = request.tls?.clientCertificate { set(CURLOPT_SSLCERT, certificate) }
    if let key = request.tls?.clientKey { set(CURLOPT_SSLKEY, key) }
    if let digest = request.digest {
      set(CURLOPT_HTTPAUTH, rb_auth_digest)
      set(CURLOPT_USERNAME, digest.user)
      set(CURLOPT_PASSWORD, digest.password)
    }
    set(CURLOPT_HTTP_VERSION, rb_http_version_2tls)
    if let proxy = request.proxy ?? configuration.proxy.proxy(for: request.url) {
      set(CURLOPT_PROXY, proxy)
    } else {
      set(CURLOPT_PROXY, "")  // ignore curl's own reading of the environment
    }
    if let noProxy = request.noProxy ?? configuration.proxy.noProxy { set(CURLOPT_NOPROXY, noProxy) }
    if let target = request.requestTarget {
      if let problem = LineBreaks.problem(in: target, what: "the request target") { throw SetupError(message: problem) }
      set(CURLOPT_REQUEST_TARGET, target)
    }
    if let jar = request.cookieJar {
      // curl's cookie engine on this handle, its store the jar's share.
      rb_easy_setopt_pointer(handle, CURLOPT_SHARE, jar.curlShare)
      set(CURLOPT_COOKIEFILE, "")
    }
    if !configuration.resolve.isEmpty {
      for mapping in configuration.resolve { resolveList = curl_slist_append(resolveList, mapping.curlEntry) }
      rb_easy_setopt_pointer(handle, CURLOPT_RESOLVE, resolveList)
    }
  }

  /// Seconds as curl's milliseconds, clamped to what curl takes (about 24 days): a timeout of
  /// 1e16 s from a workspace must not trap, and is as good as none.
  static func curlMilliseconds(_ seconds: Double) -> Int {
    min(max(0, Int(saturating: seconds * 1000)), Int(Int32.max))
  }

  /// The method as spelled, and the body whatever the method: a GET with a body (`curl -X GET
  /// -d …`, Elasticsearch's `_search`) sends it, as curl does. An empty body (`-d ''`) on a POST,
  /// PUT or PATCH says `Content-Length: 0`; no body says nothing, as `curl -X POST` without data;
  /// a HEAD never has one (refused above).
  private func attachMethodAndBytes(_ method: HTTPMethod, _ body: RequestBody) {
    switch method {
    case .HEAD:
      set(CURLOPT_NOBODY, 1)
    case .GET where body.bytes.isEmpty:
      set(CURLOPT_HTTPGET, 1)
    case .POST where !body.isEmpty:
      set(CURLOPT_POST, 1)
      attachBody(body.bytes)
    default:
      // No body at all (not even an empty one): no Content-Length, as `curl -X POST` sends it.
      set(CURLOPT_CUSTOMREQUEST, method.rawValue)
      if !body.bytes.isEmpty || (!body.isEmpty && (method == .PUT || method == .PATCH)) { attachBody(body.bytes) }
    }
  }

  private func attachBody(_ bytes: [UInt8]) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
    bytes.withUnsafeBytes { source in
      if let base = source.baseAddress, let dest = buffer.baseAddress {
        dest.copyMemory(from: base, byteCount: source.count)
      }
    }
    bodyBuffer = buffer
    rb_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
    rb_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, buffer.baseAddress)
    progress.uploadTotal = Int64(bytes.count)
  }

  /// A body streamed from disk: a file through curl's default read function (fread on the
  /// FILE*), multipart through curl_mime. Either way memory stays flat whatever the size.
  private func attachStream(_ stream: BodyStream, method: HTTPMethod) throws(SetupError) {
    for path in stream.files {
      if access(path, R_OK) != 0 {
        throw SetupError(message: "cannot read \(path): \(String(cString: strerror(errno)))")
      }
      if let what = BodyStream.notAFile(path) {
        throw SetupError(message: "cannot send \(path): it is \(what); name a file")
      }
    }
    switch stream {
    case .file(let path):
      guard let file = fopen(path, "rb") else {
        throw SetupError(message: "cannot read \(path): \(String(cString: strerror(errno)))")
      }
      uploadFile = file
      var info = stat()
      fstat(fileno(file), &info)
      // A PUT uploads the file as `curl -T` does (with `Expect: 100-continue`); any other method
      // posts it as `curl --data-binary @file` does (curl's form type unless a header sets one,
      // `Expect` only past 1 MB), read from disk as it goes either way.
      if method == .PUT {
        set(CURLOPT_UPLOAD, 1)
        rb_easy_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(info.st_size))
      } else {
        set(CURLOPT_POST, 1)
        rb_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(info.st_size))
        if method != .POST { set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
      }
      rb_easy_setopt_pointer(handle, CURLOPT_READDATA, file)
      progress.uploadTotal = Int64(info.st_size)
    case .multipart(let parts):
      guard let mime = curl_mime_init(handle) else { throw SetupError(message: "cannot build a multipart body") }
      self.mime = mime
      for part in parts {
        guard let mimePart = curl_mime_addpart(mime) else { throw SetupError(message: "cannot build a multipart body") }
        try check(curl_mime_name(mimePart, part.name), "the name of part \(part.name)")
        if let file = part.file {
          try check(curl_mime_filedata(mimePart, file), "the file \(file) of part \(part.name)")
        } else {
          let value = Array((part.value ?? "").utf8)
          let code = value.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { curl_mime_data(mimePart, $0.baseAddress, $0.count) }
          }
          try check(code, "the value of part \(part.name)")
        }
        if let filename = part.filename {
          try check(curl_mime_filename(mimePart, filename), "the file name of part \(part.name)")
        }
        if let type = part.contentType {
          try check(curl_mime_type(mimePart, type), "the content type of part \(part.name)")
        }
      }
      rb_easy_setopt_pointer(handle, CURLOPT_MIMEPOST, UnsafeRawPointer(mime))
      if method != .POST { set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
    }
  }

  /// A curl_mime_* result: anything but CURLE_OK fails the exchange before it is sent, naming
  /// what could not be set and curl's reason.
  private func check(_ code: CURLcode, _ what: String) throws(SetupError) {
    guard code != CURLE_OK else { return }
    throw SetupError(message: "cannot build a multipart body: \(what): \(String(cString: curl_easy_strerror(code)))")
  }

  // MARK: - Callbacks (engine thread, inside curl_multi_perform)

  fileprivate func receiveBody(_ pointer: UnsafeRawBufferPointer) -> Bool {
    lastActivity = clock.now
    if bodyOverLimit { return false }
    if let download {
      switch download.decision {
      case .write?: return download.append(pointer)
      case .restart?: return false  // stop: the engine sends again from byte 0
      case .alreadyComplete?: return true  // the 416's own body is of no interest
      case .failure?, nil: break  // an error body: kept in memory like any response
      }
    }
    guard sink.append(pointer) else {
      bodyOverLimit = sink.overLimit
      return false
    }
    if streamParser != nil, let events = streamParser?.feed(pointer, at: clock.now - streamOrigin), !events.isEmpty {
      onStreamEvents?(events)
    }
    return true
  }

  /// The body ended: the events a line format still held (a last line without its end).
  func finishStream() {
    guard streamParser != nil, let events = streamParser?.finish(at: clock.now - streamOrigin), !events.isEmpty else {
      return
    }
    onStreamEvents?(events)
  }

  /// One header line as curl hands it over (CRLF included). Parsed on bytes: this runs for every
  /// header of every response. False stops the transfer (a body over the limit, said up front).
  fileprivate func receiveHeader(_ raw: UnsafeRawBufferPointer) -> Bool {
    lastActivity = clock.now
    var line = raw[...]
    while let last = line.last, last == 0x0A || last == 0x0D { line = line.dropLast() }
    if line.first == UInt8(ascii: "H"), line.starts(with: "HTTP/".utf8) {
      // A new response begins (after a redirect or a 1xx): start the header set again.
      responseHeaders = HTTPHeaders()
      responseHeaders.reserveCapacity(16)
      headersComplete = false
      statusLine = 0
      if let space = line.firstIndex(of: 0x20) {
        // Three digits (RFC 9112 §4): a longer run from a hostile server must not overflow.
        for byte in line[(space + 1)...].prefix(3) {
          guard byte >= 0x30 && byte <= 0x39 else { break }
          statusLine = statusLine * 10 + Int(byte - 0x30)
        }
      }
    } else if line.isEmpty {
      let isInterim = (100..<200).contains(statusLine)
      let willFollow =
        followRedirects && Redirect.followedStatuses.contains(statusLine)
        && !(responseHeaders["Location"] ?? "").isEmpty
      if !isInterim && !willFollow && !headersComplete {
        headersComplete = true
        if let download {
          download.begin(status: statusLine, headers: responseHeaders)
          if case .write(let offset, let total, _)? = download.decision {
            progressOffset = offset
            progress.downloadTotal = total
          }
        }
        if download?.decision.map({ if case .failure = $0 { false } else { true } }) != true,
          expectsBody, responseHeaders["Content-Encoding"] == nil,
          let length = responseHeaders["Content-Length"].flatMap({ Int64($0) }), length > sink.maxBytes
        {
          // Said up front: stop before a byte of a body that is over the limit arrives.
          bodyOverLimit = true
          return false
        }
        if download == nil, expectsBody,
          let format = forcedStream ?? responseHeaders["Content-Type"].flatMap(StreamFormat.init(contentType:)),
          let makeStreamParser
        {
          streamParser = makeStreamParser(format)
          sink.beginStream()
        }
        onHeaders?(statusLine, responseHeaders)
      }
    } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
      let name = String(decoding: trimSpaces(line[..<colon]), as: UTF8.self)
      let value = String(decoding: trimSpaces(line[(colon + 1)...]), as: UTF8.self)
      if cookieJar != nil, CookieMasking.isSetCookieName(name) { receivedSetCookie = true }
      responseHeaders.add(name, value)
    }
    return true
  }

  /// Whether the response being received has a body: not for HEAD, 204 or 304.
  private var expectsBody: Bool { !isHead && statusLine != 204 && statusLine != 304 }

  private func trimSpaces(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
    var slice = bytes
    while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
    while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
    return slice
  }

  /// A request head curl sent (CURLINFO_HEADER_OUT).
  fileprivate func sentHead(_ bytes: UnsafeRawBufferPointer) {
    sentHeads.append(bytes)
  }

  fileprivate func updateProgress(dlTotal: Int64, dlNow: Int64, ulTotal: Int64, ulNow: Int64) {
    if progressOffset.addingSaturating(dlNow) != progress.downloaded || ulNow != progress.uploaded {
      lastActivity = clock.now
    }
    // A resumed download counts from the bytes already on disk, of the full length (saturating:
    // the total is the server's Content-Length, which may be 9e18).
    progress.downloaded = progressOffset.addingSaturating(dlNow)
    progress.downloadTotal = dlTotal > 0 ? progressOffset.addingSaturating(dlTotal) : nil
    progress.uploaded = ulNow
    if ulTotal > 0 { progress.uploadTotal = ulTotal }
    let now = clock.now
    let elapsed = now - startedAt
    if elapsed >= 0.2 {
      let moving = ulTotal > 0 && ulNow < ulTotal ? ulNow : (dlNow > 0 ? dlNow : ulNow)
      progress.bytesPerSecond = Double(moving) / elapsed
    }
    if now - lastProgressEmit >= progressInterval, dlNow > 0 || ulNow > 0 {
      lastProgressEmit = now
      onProgress?(progress)
    }
  }

  // MARK: - Results

  func info() -> (status: Int, version: String, effectiveURL: String, redirects: Int, timing: Timing, sent: Int64) {
    var code = 0
    rb_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
    var version = 0
    rb_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
    var redirects = 0
    rb_easy_getinfo_long(handle, CURLINFO_REDIRECT_COUNT, &redirects)
    var urlPointer: UnsafePointer<CChar>?
    rb_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &urlPointer)
    func micros(_ info: CURLINFO) -> Double {
      var value: curl_off_t = 0
      rb_easy_getinfo_off(handle, info, &value)
      return Double(value) / 1_000_000
    }
    var uploaded: curl_off_t = 0
    rb_easy_getinfo_off(handle, CURLINFO_SIZE_UPLOAD_T, &uploaded)
    let timing = Timing(
      dns: micros(CURLINFO_NAMELOOKUP_TIME_T), connect: micros(CURLINFO_CONNECT_TIME_T),
      tls: micros(CURLINFO_APPCONNECT_TIME_T), firstByte: micros(CURLINFO_STARTTRANSFER_TIME_T),
      total: micros(CURLINFO_TOTAL_TIME_T))
    let versionName: String
    switch version {
    case 1: versionName = "HTTP/1.0"
    case 2: versionName = "HTTP/1.1"
    case 3: versionName = "HTTP/2"
    case 30: versionName = "HTTP/3"
    default: versionName = "HTTP"
    }
    return (
      code, versionName, urlPointer.map { String(cString: $0) } ?? "", redirects, timing, Int64(uploaded)
    )
  }

  func finishBody() -> ResponseBody { sink.finish() }

  /// The request body bytes curl sent on this transfer (CURLINFO_SIZE_UPLOAD_T).
  var uploadedBytes: Int64 {
    var uploaded: curl_off_t = 0
    rb_easy_getinfo_off(handle, CURLINFO_SIZE_UPLOAD_T, &uploaded)
    return Int64(uploaded)
  }

  /// Where the response's `Location` points, resolved by curl against the URL of this transfer
  /// (CURLINFO_REDIRECT_URL); nil without one, or when curl could not make a URL of it.
  var redirectURL: String? {
    var pointer: UnsafePointer<CChar>?
    rb_easy_getinfo_string(handle, CURLINFO_REDIRECT_URL, &pointer)
    return pointer.map { String(cString: $0) }
  }

  var bodyError: String? { sink.error }

  /// Why the transfer ended with `curlCode`, in the engine's terms: a body over the limit and a
  /// header line over curl's 100 KB (which curl 7.88 reports as out of memory, 27) get their own
  /// words; a spill file that could not be written is `cannotWriteFile`.
  func failure(curlCode: CURLcode) -> ExchangeError {
    if bodyOverLimit { return .bodyTooLarge(limit: sink.maxBytes) }
    if let bodyError { return .transport(.cannotWriteFile, detail: bodyError) }
    let code = Int(curlCode.rawValue)
    if code == 27 && !headersComplete { return .transport(.responseHeaderTooLarge) }
    return .transport(TransportFailure(curlCode: code, message: errorMessage), detail: errorMessage)
  }
}

// The C callbacks: userdata is the Transfer (unretained; the engine keeps it alive while curl runs).

private let transferWriteCallback: rb_data_callback = { pointer, size, count, userdata in
  guard let userdata, let pointer else { return 0 }
  let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
  let length = size * count
  let ok = transfer.receiveBody(UnsafeRawBufferPointer(start: pointer, count: length))
  return ok ? length : 0
}

private let transferHeaderCallback: rb_data_callback = { pointer, size, count, userdata in
  guard let userdata, let pointer else { return 0 }
  let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
  let length = size * count
  return transfer.receiveHeader(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
}

private let transferHeaderOutCallback: rb_header_out_callback = { pointer, size, userdata in
  guard let userdata, let pointer else { return }
  let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
  transfer.sentHead(UnsafeRawBufferPointer(start: pointer, count: size))
}

private let transferProgressCallback: rb_xferinfo_callback = { userdata, dlTotal, dlNow, ulTotal, ulNow in
  guard let userdata else { return 0 }
  let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
  transfer.updateProgress(
    dlTotal: Int64(dlTotal), dlNow: Int64(dlNow), ulTotal: Int64(ulTotal), ulNow: Int64(ulNow))
  return 0
}

