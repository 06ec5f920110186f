import RequestEngine
import Workspace

// What a curl command's options, once read (`CommandReader`), make: the one URL, its query, the
// method curl would use, the headers curl adds, the body, as a request template.

extension CurlImporter.CommandReader {
  /// The request template of the options read so far; an error for a command curl would not send
  /// as one request (no URL, a second URL, …).
  mutating func finish() throws(ImportError) -> RequestTemplate {
    guard let urlWord = urls.first else {
      throw error("this curl command has no URL", at: command.location)
    }
    if urls.count > 1 {
      throw error(
        "a second URL in one curl command; write one curl command per URL", at: urls[1].location)
    }
    // `http://` is what curl assumes.
    var url = try RequestDraft.commandLineURL(urlWord.text, scheme: "http://", file: file, at: urlWord.location)

    if get, let other = bodyOptions.first(where: { $0.kind != .data }) {
      throw error(
        "-G moves data options into the query; it does not go with \(other.flag)",
        at: command.location)
    }
    // One `--data-binary @path` is the whole body: a file body, sent as it is (`-d @path`
    // drops the file's CR and LF, so it is read here, as curl reads it).
    var bodyFile: String?
    if data.count == 1, !get, case .file(let path, .binary, let flag, let location) = data[0] {
      if let problem = RequestDraft.pathProblem(path) {
        throw error("\(flag) @\(path): \(problem)", at: location)
      }
      bodyFile = path
      data = []
    }
    // Several data options join with `&` (`--json` pieces are concatenated as they are).
    var body: String?
    let allJSON = data.allSatisfy { if case .text(_, json: true) = $0 { true } else { false } }
    for piece in data {
      let text: String
      switch piece {
      case .text(let value, _): text = value
      case .file(let path, let kind, let flag, let location):
        text = try dataText(kind, "@" + path, flag: flag, at: location)
      }
      if let joined = body {
        body = joined + (allJSON ? "" : "&") + text
      } else {
        body = text
      }
    }
    // `-G` data and `--url-query` pieces join the query as curl 7.88 joins them: after a `&`
    // unless the query ends in one, their percent escapes in lower case (`%2f`).
    if get, let text = body {
      url = CurlImporter.appendQuery(text, to: url)
      body = nil
      if let flag = urlQueryFlag {
        throw error(
          "-G and \(flag) together: curl 7.88 sends the -G data and drops \(flag); keep one of them",
          at: command.location)
      }
    }
    for piece in urlQueries { url = CurlImporter.appendQuery(piece, to: url) }
    if let upload {
      // curl appends the file's name to a URL that ends in `/` or has no path.
      var split = URLResolver.split(url)
      if split.path.isEmpty || split.path.hasSuffix("/"), let name = upload.split(separator: "/").last {
        if split.path.isEmpty { split.path = "/" }
        split.path += PlaceholderEncoding.encode(String(name))
        url = URLResolver.join(split)
      }
    }
    let hasBody = body != nil || bodyFile != nil || !parts.isEmpty
    draft.method = method ?? (head ? .HEAD : upload != nil ? .PUT : hasBody ? .POST : .GET)
    draft.setURL(url)

    // A written Content-Length goes only when it is the body's length (no body: 0).
    let length: Int? = bodyFile == nil && upload == nil && parts.isEmpty ? body?.utf8.count ?? 0 : nil
    let sent = sentHeaders(bodyLength: length)
    draft.addHeaders(sent)
    draft.compressed = compressed
    if let proxyUser {
      guard let proxy = draft.proxy else {
        throw error("\(proxyUser.flag) gives the proxy's credentials: it needs -x PROXY too", at: proxyUser.location)
      }
      draft.proxy = CurlImporter.proxy(proxy, withCredentials: proxyUser.credentials)
    }
    if let body {
      draft.setBody(body, defaultContentType: RequestDraft.formType, json: sawJSONOption)
    } else if let bodyFile {
      draft.setFileBody(bodyFile, defaultContentType: RequestDraft.formType)
    } else if let upload {
      draft.setFileBody(upload, defaultContentType: nil)
      // curl sends no Content-Type with -T: an empty one keeps the file body's own out.
      if !draft.headers.contains("Content-Type") { draft.headers["Content-Type"] = "" }
    } else if !parts.isEmpty {
      draft.setMultipart(parts)
    }
    return try draft.commandLineTemplate(file: file, at: command.location, warnings: &warnings)
  }
}
