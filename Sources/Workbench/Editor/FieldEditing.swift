import Foundation
import RequestEngine
import Workspace

/// Reading the editor's texts back into the request: a field edited in place (`applying`), the
/// body from `$EDITOR` (`applyingBody`).
extension RequestTemplate {
  /// Reads `partText` back.
  static func part(from line: Substring) throws(EditError) -> MultipartField {
    guard let eq = line.firstIndex(of: "="), eq != line.startIndex else {
      throw EditError(message: "multipart lines are name=value or name=@path;type=…; \"\(line)\" has no =")
    }
    let name = String(line[..<eq])
    let rest = line[line.index(after: eq)...]
    guard rest.hasPrefix("@") else { return MultipartField(name: name, value: String(rest)) }
    var pieces = rest.dropFirst().split(separator: ";", omittingEmptySubsequences: false)
    var field = MultipartField(name: name, file: String(pieces.removeFirst()))
    for piece in pieces {
      if piece.hasPrefix("type=") {
        field.type = String(piece.dropFirst(5))
      } else if piece.hasPrefix("filename=") {
        field.filename = String(piece.dropFirst(9))
      } else {
        throw EditError(message: "\"\(piece)\" is not a part setting; use type=… or filename=…")
      }
    }
    if let problem = WorkspacePaths.problem(with: field.file ?? "") { throw EditError(message: problem) }
    return field
  }

  /// This template with `text` written into the field; empty text removes a query parameter or
  /// header, and clears optional fields.
  public func applying(_ text: String, to kind: EditorField.Kind) throws(EditError) -> RequestTemplate {
    var copy = self
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    switch kind {
    case .name:
      // Checked (valid, not taken) by the workspace when it takes the edit: a rename.
      if let problem = Workspace.problem(withName: trimmed) { throw EditError(message: problem) }
      copy.name = trimmed
    case .method:
      guard let method = HTTPMethod(parsing: trimmed) else {
        throw EditError(message: HTTPMethod.notAMethod(trimmed))
      }
      copy.method = method
    case .url:
      guard !trimmed.isEmpty else { throw EditError(message: "the URL cannot be empty") }
      _ = try template(trimmed)
      copy.url = trimmed
    case .query, .addQuery:
      var members = copy.query.members
      let position: Int? = if case .query(let i) = kind { i } else { nil }
      if trimmed.isEmpty {
        if let position, members.indices.contains(position) { members.remove(at: position) }
      } else {
        guard let eq = trimmed.firstIndex(of: "="), eq != trimmed.startIndex else {
          throw EditError(message: "write a query parameter as name=value")
        }
        let name = String(trimmed[..<eq])
        let value = String(trimmed[trimmed.index(after: eq)...])
        _ = try template(name + value)
        if let position, members.indices.contains(position) {
          members[position] = (name, .string(value))
        } else {
          members.append((name, .string(value)))
        }
      }
      let old = position.flatMap { copy.query.members.indices.contains($0) ? copy.query.members[$0].key : nil }
      copy.query = JSONObject(members)
      // A parameter switched off stays off under a new name; a name gone is forgotten.
      if let old, !copy.isEnabled(query: old) {
        if copy.query[old] == nil { copy.setEnabled(true, query: old) }
        if let position, members.indices.contains(position) { copy.setEnabled(false, query: members[position].key) }
      }
    case .header, .addHeader:
      var fields = copy.headers.fields
      let position: Int? = if case .header(let i) = kind { i } else { nil }
      if trimmed.isEmpty {
        if let position, fields.indices.contains(position) { fields.remove(at: position) }
      } else {
        guard let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex else {
          throw EditError(message: "write a header as Name: value")
        }
        let name = trimmed[..<colon].trimmingCharacters(in: .whitespaces)
        let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
          throw EditError(message: "\"\(name)\" is not a header name; use letters, digits and -")
        }
        _ = try template(value)
        if let position, fields.indices.contains(position) {
          fields[position] = (name, value)
        } else {
          fields.append((name, value))
        }
      }
      let old = position.flatMap { copy.headers.fields.indices.contains($0) ? copy.headers.fields[$0].name : nil }
      copy.headers = HTTPHeaders(fields.map { ($0.name, $0.value) })
      // A header switched off stays off under a new name; a name gone is forgotten.
      if let old, !copy.isEnabled(header: old) {
        if !copy.headers.contains(old) { copy.setEnabled(true, header: old) }
        if let position, fields.indices.contains(position) { copy.setEnabled(false, header: fields[position].name) }
      }
    case .body, .auth:
      throw EditError(message: "Enter chooses the \(kind == .body ? "body" : "auth") type from a list")
    case .bodyFile:
      guard !trimmed.isEmpty else {
        throw EditError(message: "a file body needs the file's path, relative to the workspace's folder (Esc cancels)")
      }
      _ = try template(trimmed)
      do {
        try copy.setBodyKind(.file, file: trimmed)
      } catch {
        throw EditError(message: error.message)
      }
    case .authUser, .authPassword:
      // A password is taken as typed, spaces too.
      let value = kind == .authUser ? trimmed : text
      _ = try template(value)
      switch copy.auth {
      case .basic(let user, let password):
        copy.auth = kind == .authUser ? .basic(user: value, password: password) : .basic(user: user, password: value)
      case .digest(let user, let password):
        copy.auth = kind == .authUser ? .digest(user: value, password: password) : .digest(user: user, password: value)
      default:
        throw EditError(message: "choose basic or digest auth first (Enter on Auth)")
      }
    case .authGrant:
      throw EditError(message: "an oauth2 block is edited in the workspace file (its fields depend on the grant)")
    case .authToken:
      if case .oauth2? = copy.auth {
        throw EditError(message: "an oauth2 block is edited in the workspace file (its fields depend on the grant)")
      }
      _ = try template(trimmed)
      copy.auth = .bearer(trimmed)
    case .timeout:
      guard let seconds = Double(trimmed), seconds > 0 else {
        throw EditError(message: "the timeout is a number of seconds above 0")
      }
      copy.timeout = seconds
    case .deadline:
      if trimmed.isEmpty {
        copy.deadline = nil
      } else {
        guard let seconds = Double(trimmed), seconds > 0 else {
          throw EditError(message: "the deadline is a number of seconds above 0, or empty for none")
        }
        copy.deadline = seconds
      }
    case .priority:
      guard let priority = Priority(name: trimmed.lowercased()) else {
        throw EditError(message: "the priority is high, normal or low")
      }
      copy.priority = priority
    case .status:
      var ranges: [ClosedRange<Int>] = []
      for part in trimmed.split(separator: ",") {
        let bounds = part.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let low = bounds.first ?? nil, let high = bounds.last ?? nil, bounds.count <= 2, low <= high,
          (100...599).contains(low), (100...599).contains(high)
        else {
          throw EditError(message: "write statuses as 200-299 or 200-299, 418")
        }
        ranges.append(low...high)
      }
      guard !ranges.isEmpty else { throw EditError(message: "write statuses as 200-299 or 200-299, 418") }
      copy.validation.status = ranges
    case .cache:
      if trimmed.isEmpty {
        copy.cache = nil
      } else {
        var words = trimmed.split(separator: " ").map(String.init)
        guard let first = words.first, let seconds = Double(first), seconds >= 0 else {
          throw EditError(message: "write the cache as SECONDS [mode] [revalidate] [vN], e.g. 300 s cacheThenNetwork")
        }
        words.removeFirst()
        var policy = copy.cache ?? CachePolicy(seconds: seconds)
        // What the text shows is what the policy becomes: a word left out is back to its default.
        policy.seconds = seconds
        policy.mode = .cacheElseNetwork
        policy.revalidate = false
        policy.version = 0
        for word in words where word != "s" {
          if let mode = CachePolicy.Mode(rawValue: word) {
            policy.mode = mode
          } else if word == "revalidate" {
            policy.revalidate = true
          } else if word.hasPrefix("v"), let version = Int(word.dropFirst()) {
            policy.version = version
          } else {
            throw EditError(
              message: "\"\(word)\" is not a cache mode; use "
                + CachePolicy.Mode.allCases.map(\.rawValue).joined(separator: ", ") + ", revalidate or vN")
          }
        }
        copy.cache = policy
      }
    case .download:
      if trimmed.isEmpty {
        copy.download = nil
      } else {
        var words = trimmed.split(separator: " ").map(String.init)
        let to = words.removeFirst()
        if let problem = WorkspacePaths.problem(with: to) { throw EditError(message: problem) }
        _ = try template(to)
        var download = DownloadTemplate(to: to)
        for word in words {
          if word.hasPrefix("sha256="), word.count == 71, word.dropFirst(7).allSatisfy(\.isHexDigit) {
            download.sha256 = word.dropFirst(7).lowercased()
          } else if word == "trust" {
            download.trustLength = true
          } else {
            throw EditError(message: "write the download as PATH [sha256=64 hex digits] [trust]")
          }
        }
        copy.download = download
      }
    case .tls:
      var tls = TLSSettings()
      for word in trimmed.split(separator: " ") {
        if word.hasPrefix("ca="), word.count > 3 {
          tls.caFile = String(word.dropFirst(3))
        } else if word.hasPrefix("pin=sha256//"), word.count > 12 {
          tls.pinnedPublicKey = String(word.dropFirst(4))
        } else if word.hasPrefix("cert="), word.count > 5 {
          tls.clientCertificate = String(word.dropFirst(5))
        } else if word.hasPrefix("key="), word.count > 4 {
          tls.clientKey = String(word.dropFirst(4))
        } else {
          throw EditError(message: "write TLS settings as ca=PATH pin=sha256//BASE64 cert=PATH key=PATH (any of them, or empty for none)")
        }
      }
      copy.tls = tls == TLSSettings() ? nil : tls
    case .compressed:
      switch trimmed.lowercased() {
      case "on", "true", "yes": copy.compressed = true
      case "off", "false", "no": copy.compressed = false
      default: throw EditError(message: "compressed is on (ask for compressed responses and decode them) or off")
      }
    case .proxy:
      if trimmed.isEmpty {
        copy.proxy = nil
      } else {
        _ = try template(trimmed)
        if let problem = RequestTemplate.proxyProblem(trimmed) {
          throw EditError(message: problem + " (empty for none)")
        }
        copy.proxy = trimmed
      }
    case .noProxy:
      if trimmed.isEmpty {
        copy.noProxy = nil
      } else {
        _ = try template(trimmed)
        copy.noProxy = trimmed
      }
    case .dedup:
      switch trimmed.lowercased() {
      case "on", "true", "yes": copy.dedup = true
      case "off", "false", "no": copy.dedup = false
      default: throw EditError(message: "dedup is on or off")
      }
    case .json:
      if trimmed.isEmpty {
        copy.validation.json = nil
      } else {
        do {
          copy.validation.json = try JSONShape(try JSONParser.parse(trimmed))
        } catch let error as JSONSyntaxError {
          throw EditError(message: "the shape is not JSON: \(error.message) at column \(error.location.column)")
        } catch {
          throw EditError(message: "\(error)")
        }
      }
    }
    return copy
  }

  private func template(_ text: String) throws(EditError) -> Template {
    do {
      return try Template(text)
    } catch {
      throw EditError(message: error.message)
    }
  }

  /// The body as text for `$EDITOR`: pretty JSON, `k=v` lines for forms, the text itself.
  public var bodyEditorText: (text: String, fileExtension: String) {
    switch body {
    case nil: return ("", "txt")
    case .json(let value): return (JSONSerializer.pretty(value) + "\n", "json")
    case .form(let fields):
      return (fields.members.map { "\($0.key)=\($0.value.stringValue ?? JSONSerializer.compact($0.value))" }.joined(separator: "\n") + "\n", "txt")
    case .text(let text, let type): return (text, type?.hasPrefix("application/json") == true ? "json" : "txt")
    case .file(let path, _): return (path + "\n", "txt")
    case .multipart(let fields): return (fields.map(Self.partText).joined(separator: "\n") + "\n", "txt")
    }
  }

  /// This template with the body read back from `$EDITOR`, in the body's kind (with none yet,
  /// `BodyTemplate.typed`: a JSON object or array is a JSON body, else text).
  public func applyingBody(_ text: String) throws(EditError) -> RequestTemplate {
    var copy = self
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    switch body {
    case .form:
      var fields: [(key: String, value: JSONValue)] = []
      for line in trimmed.split(separator: "\n") where !line.isEmpty {
        guard let eq = line.firstIndex(of: "=") else {
          throw EditError(message: "form lines are name=value; \"\(line)\" has no =")
        }
        fields.append((String(line[..<eq]), .string(String(line[line.index(after: eq)...]))))
      }
      copy.body = .form(JSONObject(fields))
    case .text(_, let type):
      copy.body = trimmed.isEmpty ? nil : .text(text, contentType: type)
    case .file(_, let type):
      if trimmed.isEmpty {
        copy.body = nil
      } else {
        if let problem = WorkspacePaths.problem(with: trimmed) { throw EditError(message: problem) }
        copy.body = .file(trimmed, contentType: type)
      }
    case .multipart:
      var fields: [MultipartField] = []
      for line in trimmed.split(separator: "\n") where !line.isEmpty { fields.append(try Self.part(from: line)) }
      copy.body = fields.isEmpty ? nil : .multipart(fields)
    case nil:
      copy.body = BodyTemplate.typed(text)
    case .json:
      if trimmed.isEmpty {
        copy.body = nil
      } else {
        do {
          copy.body = .json(try JSONParser.parse(trimmed))
        } catch {
          throw EditError(
            message: "the body is not valid JSON (line \(error.location.line), column \(error.location.column): \(error.message)); press E to fix it")
        }
      }
    }
    return copy
  }
}
