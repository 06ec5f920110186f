import RequestEngine

/// Writes model values back into the JSON object they were read from.
///
/// For each known key: when the file's value still reads as the model's value it is left exactly as
/// written (`"get"`, `30.0`, `[[200, 299]]` stay); when the key is absent and the model holds the
/// default, nothing is added; otherwise the model's value replaces it in place (new keys go last).
/// Keys the app does not know are never touched.
struct ObjectWriter {
  var object: JSONObject

  init(_ object: JSONObject) { self.object = object }
  init(_ value: JSONValue?) { self.object = value?.objectValue ?? JSONObject() }

  /// A key that is always written.
  mutating func write<T: Equatable>(
    _ key: String, _ value: T,
    read: (inout WorkspaceReader, JSONValue, ReaderPath) -> T?,
    encode: (T, JSONValue?) -> JSONValue?
  ) {
    let old = object[key]
    if let old, WorkspaceReader.decode({ read(&$0, old, .untracked) }) == value { return }
    object[key] = encode(value, old)
  }

  /// A key that is left out while it holds `defaultValue`.
  mutating func write<T: Equatable>(
    _ key: String, _ value: T, default defaultValue: T,
    read: (inout WorkspaceReader, JSONValue, ReaderPath) -> T?,
    encode: (T, JSONValue?) -> JSONValue?
  ) {
    if object[key] == nil && value == defaultValue { return }
    write(key, value, read: read, encode: encode)
  }

  /// An optional key: absent (or `null` in the file) is nil.
  mutating func write<T: Equatable>(
    _ key: String, _ value: T?,
    read: @escaping (inout WorkspaceReader, JSONValue, ReaderPath) -> T?,
    encode: @escaping (T, JSONValue?) -> JSONValue
  ) {
    write(
      key, value, default: nil,
      read: { r, v, p in r.optional(v, p, read) },
      encode: { value, old in value.map { encode($0, old) } })
  }
}

extension Workspace {
  /// The workspace as JSON: the file it was read from with the model's changes written in.
  var json: JSONValue {
    var w = ObjectWriter(source)
    w.write("version", 1, read: { r, v, p in r.int(v, p) }, encode: { v, _ in .number(v) })
    if name != nameFromFileName {
      w.write("name", name, read: { $0.nonEmptyString($1, $2) }, encode: { v, _ in .string(v) })
    }
    w.write("baseURL", baseURL, read: { $0.template($1, $2) }, encode: { v, _ in .string(v) })
    w.write("cdnURL", cdnURL, read: { $0.template($1, $2) }, encode: { v, _ in .string(v) })
    w.write(
      "defaults", defaults, default: RequestDefaults(), read: { $0.defaults($1, $2) },
      encode: { defaults, old in
        var object = old?.objectValue ?? JSONObject()
        object["headers"] = defaults.headers.isEmpty ? nil : defaults.headerFields.json(merging: object["headers"])
        object["query"] = defaults.query.isEmpty ? nil : defaults.queryFields.json(merging: object["query"])
        return .object(object)
      })
    w.write(
      "agent", agent, default: AgentSettings(), read: { $0.agent($1, $2) },
      encode: { agent, old in agent.json(merging: old) })
    w.write("retry", retry, read: { $0.retry($1, $2) }, encode: { $0.json(merging: $1) })
    w.write("maxBodyMB", maxBodyMB, read: { $0.megabytes($1, $2) }, encode: { v, _ in .number(v) })
    w.write(
      "resolve", resolve, default: [], read: { $0.resolve($1, $2) },
      encode: { v, _ in .array(v.map { .string($0.curlEntry) }) })
    w.write(
      "history", history, default: HistorySettings(), read: { $0.history($1, $2) },
      encode: { history, old in history.json(merging: old) })
    w.write("cookies", cookies, default: true, read: { $0.bool($1, $2) }, encode: { v, _ in .bool(v) })
    w.write(
      "variables", variables, default: [], read: { $0.variables($1, $2) },
      encode: { variables, old in variables.json(merging: old) })
    w.write(
      "environment", environment, read: { $0.string($1, $2) }, encode: { v, _ in .string(v) })
    w.write(
      "environments", environments, default: [], read: { $0.environments($1, $2) },
      encode: { environments, old in
        var object = JSONObject()
        for environment in environments {
          object[environment.name] = environment.variables.json(merging: old?[environment.name])
        }
        return .object(object)
      })
    // Each request, chain and batch carries the object it was read from; unchanged ones come
    // back as they were.
    if !requests.isEmpty || w.object["requests"] != nil {
      w.object["requests"] = .array(requests.map(\.json))
    }
    if !chains.isEmpty || w.object["chains"] != nil { w.object["chains"] = .array(chains.map(\.json)) }
    if !batches.isEmpty || w.object["batches"] != nil {
      w.object["batches"] = .array(batches.map(\.json))
    }
    return .object(w.object)
  }
}

extension RequestTemplate {
  /// The request as JSON, written back into the object it was read from.
  package var json: JSONValue {
    var w = ObjectWriter(source)
    w.write("name", name, read: { $0.nonEmptyString($1, $2) }, encode: { v, _ in .string(v) })
    w.write(
      "method", method, default: .GET, read: { $0.method($1, $2) },
      encode: { v, _ in .string(v.rawValue) })
    w.write("url", url, read: { $0.template($1, $2) }, encode: { v, _ in .string(v) })
    w.write(
      "query", queryFields, default: .init(), read: { $0.query($1, $2) },
      encode: { $0.json(merging: $1) })
    w.write(
      "headers", headerFields, default: .init(), read: { $0.headers($1, $2) },
      encode: { $0.json(merging: $1) })
    switch storedBody {
    case .template(let body):
      w.write("body", body, read: { $0.body($1, $2) }, encode: { $0.json(merging: $1) })
    case .deferredJSON(let text):
      // The body as read, its JSON left as text (`null` in `source`): the text's value written
      // in, made for this write only (the file's text of it is then kept byte for byte).
      var object = w.object["body"]?.objectValue ?? JSONObject()
      object["json"] = text.parsedAgain()
      w.object["body"] = .object(object)
    }
    w.write("auth", auth, read: { $0.auth($1, $2) }, encode: { $0.json(merging: $1) })
    w.write(
      "timeout", timeout, default: RequestTemplate.defaultTimeout,
      read: { $0.seconds($1, $2, zeroMeans: RequestTemplate.noTimeout) },
      encode: { v, _ in .number(v) })
    w.write("deadline", deadline, read: { $0.seconds($1, $2) }, encode: { v, _ in .number(v) })
    w.write(
      "priority", priority, default: .normal, read: { $0.priority($1, $2) },
      encode: { v, _ in .string(v.name) })
    w.write(
      "followRedirects", followRedirects, default: true, read: { $0.bool($1, $2) },
      encode: { v, _ in .bool(v) })
    w.write(
      "maxRedirects", maxRedirects, default: 10, read: { $0.int($1, $2, atLeast: 0) },
      encode: { v, _ in .number(v) })
    w.write(
      "insecure", insecure, default: false, read: { $0.bool($1, $2) }, encode: { v, _ in .bool(v) })
    w.write(
      "compressed", compressed, default: true, read: { $0.bool($1, $2) }, encode: { v, _ in .bool(v) })
    w.write("proxy", proxy, read: { $0.proxy($1, $2) }, encode: { v, _ in .string(v) })
    w.write("noProxy", noProxy, read: { $0.lineTemplate($1, $2) }, encode: { v, _ in .string(v) })
    w.write("requestTarget", requestTarget, read: { $0.requestTarget($1, $2) }, encode: { v, _ in .string(v) })
    w.write(
      "useCDN", useCDN, default: false, read: { $0.bool($1, $2) }, encode: { v, _ in .bool(v) })
    w.write("cache", cache, read: { $0.cache($1, $2) }, encode: { $0.json(merging: $1) })
    w.write("download", download, read: { $0.download($1, $2) }, encode: { $0.json(merging: $1) })
    w.write(
      "tls", tls, read: { $0.tls($1, $2) },
      encode: { tls, old in
        var object = old?.objectValue ?? JSONObject()
        object["ca"] = tls.caFile.map { .string($0) }
        object["pin"] = tls.pinnedPublicKey.map { .string($0) }
        object["cert"] = tls.clientCertificate.map { .string($0) }
        object["key"] = tls.clientKey.map { .string($0) }
        return .object(object)
      })
    w.write(
      "dedup", dedup, default: true, read: { $0.bool($1, $2) }, encode: { v, _ in .bool(v) })
    w.write("cookies", cookies, default: true, read: { $0.bool($1, $2) }, encode: { v, _ in .bool(v) })
    w.write("throttle", throttle, read: { $0.number($1, $2) }, encode: { v, _ in .number(v) })
    w.write("stream", stream, read: { $0.streamFormat($1, $2) }, encode: { v, _ in .string(v.rawValue) })
    w.write("reconnect", reconnect, default: false, read: { $0.bool($1, $2) }, encode: { v, _ in .bool(v) })
    w.write("retry", retry, read: { $0.retry($1, $2) }, encode: { $0.json(merging: $1) })
    w.write("maxBodyMB", maxBodyMB, read: { $0.megabytes($1, $2) }, encode: { v, _ in .number(v) })
    w.write(
      "validate", validation, default: Validation(), read: { $0.validation($1, $2) },
      encode: { validation, old in validation.json(merging: old) })
    w.write("imported", imported, read: { $0.importOrigin($1, $2) }, encode: { v, _ in v.json })
    return .object(w.object)
  }
}

extension SwitchableFields {
  /// The query as the reader returns it, to compare with the file's.
  var queryFields: WorkspaceReader.QueryFields {
    WorkspaceReader.QueryFields(query: query, off: switchedOff.query.intersection(query.keys))
  }

  var headerFields: WorkspaceReader.HeaderFields {
    WorkspaceReader.HeaderFields(
      headers: headers, off: switchedOff.headers.intersection(headers.fields.map { $0.name.lowercased() }))
  }

  /// Takes what the reader read.
  mutating func setQuery(_ fields: WorkspaceReader.QueryFields) {
    query = fields.query
    for key in fields.off { switchedOff.set(query: key, off: true) }
  }

  mutating func setHeaders(_ fields: WorkspaceReader.HeaderFields) {
    headers = fields.headers
    for name in fields.off { switchedOff.set(header: name, off: true) }
  }
}

/// The members of the object a query or the headers were read from, each looked up at once
/// (`JSONObject`'s subscript compares with every member: quadratic over thousands).
private struct OldMembers {
  let object: JSONObject?
  let index: [String: Int]?

  init(_ old: JSONValue?) {
    object = old?.objectValue
    index = object.flatMap { $0.count > 16 ? $0.keyIndex : nil }
  }

  subscript(key: String) -> JSONValue? {
    guard let object else { return nil }
    guard let index else { return object[key] }
    return index[key].map { object.members[$0].value }
  }
}

/// A switched-off entry: `{"value": …, "enabled": false}`, written over the entry object the file
/// had (so its spelling stays), or anew.
private func switchedOffEntry(_ value: JSONValue, over old: JSONValue?) -> JSONValue {
  var entry = old?.objectValue ?? JSONObject()
  entry["value"] = value
  entry["enabled"] = false
  return .object(entry)
}

extension WorkspaceReader.QueryFields {
  /// Each parameter as the file wrote it while it reads the same; otherwise its value, or a
  /// switched-off entry.
  func json(merging old: JSONValue?) -> JSONValue {
    let previous = OldMembers(old)
    var members: [(key: String, value: JSONValue)] = []
    members.reserveCapacity(query.count)
    for member in query.members {
      let isOff = off.contains(member.key)
      let single = Self(query: JSONObject([member]), off: isOff ? [member.key] : [])
      let previous = previous[member.key]
      if let previous, WorkspaceReader.decode({ $0.query([member.key: previous], .untracked) }) == single {
        members.append((member.key, previous))
      } else {
        members.append((member.key, isOff ? switchedOffEntry(member.value, over: previous) : member.value))
      }
    }
    // The query's keys are distinct (an object's).
    return .object(JSONObject(distinctKeys: members))
  }
}

extension WorkspaceReader.HeaderFields {
  func json(merging old: JSONValue?) -> JSONValue {
    let previousMembers = OldMembers(old)
    var members: [(key: String, value: JSONValue)] = []
    members.reserveCapacity(headers.count)
    for field in headers.fields {
      let isOff = off.contains(field.name.lowercased())
      var single = HTTPHeaders()
      single.add(field.name, field.value)
      let expected = Self(headers: single, off: isOff ? [field.name.lowercased()] : [])
      let previous = previousMembers[field.name]
      if let previous, WorkspaceReader.decode({ $0.headers([field.name: previous], .untracked) }) == expected {
        members.append((field.name, previous))
      } else {
        members.append((field.name, isOff ? switchedOffEntry(.string(field.value), over: previous) : .string(field.value)))
      }
    }
    // A name given twice (`HTTPHeaders.add`) is one member, the last value at the first place.
    return .object(JSONObject(members))
  }
}

extension BodyTemplate {
  func json(merging old: JSONValue?) -> JSONValue {
    var object = old?.objectValue ?? JSONObject()
    for other in BodyTemplate.kinds where other != kind { object[other] = nil }
    switch self {
    case .json(let value):
      object["json"] = value
      object["contentType"] = nil
    case .form(let fields):
      object["form"] = .object(fields)
      object["contentType"] = nil
    case .text(let text, let contentType):
      object["text"] = .string(text)
      object["contentType"] = contentType.map { .string($0) }
    case .file(let path, let contentType):
      object["file"] = .string(path)
      object["contentType"] = contentType.map { .string($0) }
    case .multipart(let fields):
      object["multipart"] = .array(
        fields.map { field in
          var part = JSONObject([(key: "name", value: .string(field.name))])
          if let value = field.value { part["value"] = .string(value) }
          if let file = field.file { part["file"] = .string(file) }
          if let type = field.type { part["type"] = .string(type) }
          if let filename = field.filename { part["filename"] = .string(filename) }
          return .object(part)
        })
      object["contentType"] = nil
    }
    return .object(object)
  }
}

extension DownloadTemplate {
  func json(merging old: JSONValue?) -> JSONValue {
    var object = old?.objectValue ?? JSONObject()
    object["to"] = .string(to)
    object["sha256"] = sha256.map { .string($0) }
    object["trustLength"] = trustLength ? .bool(true) : (object["trustLength"] == nil ? nil : .bool(false))
    return .object(object)
  }
}

extension Auth {
  func json(merging old: JSONValue?) -> JSONValue {
    var object = old?.objectValue ?? JSONObject()
    switch self {
    case .basic(let user, let password), .digest(let user, let password):
      let kind = kind
      for other in Auth.kinds where other != kind { object[other] = nil }
      var credentials = ObjectWriter(object[kind])
      credentials.write("user", user, read: { $0.template($1, $2) }, encode: { v, _ in .string(v) })
      credentials.write(
        "password", password, read: { $0.template($1, $2) }, encode: { v, _ in .string(v) })
      object[kind] = .object(credentials.object)
    case .bearer(let token):
      for other in Auth.kinds where other != "bearer" { object[other] = nil }
      object["bearer"] = .string(token)
    case .oauth2(let settings):
      for other in Auth.kinds where other != "oauth2" { object[other] = nil }
      object["oauth2"] = settings.json(merging: object["oauth2"])
    }
    return .object(object)
  }
}

extension AgentSettings {
  func json(merging old: JSONValue?) -> JSONValue {
    let defaults = AgentSettings()
    var w = ObjectWriter(old)
    w.write(
      "maxConcurrent", maxConcurrent, default: defaults.maxConcurrent,
      read: { $0.int($1, $2, atLeast: 1) }, encode: { v, _ in .number(v) })
    w.write(
      "maxPerHost", maxPerHost, default: defaults.maxPerHost, read: { $0.int($1, $2, atLeast: 1) },
      encode: { v, _ in .number(v) })
    return .object(w.object)
  }
}

extension HistorySettings {
  func json(merging old: JSONValue?) -> JSONValue {
    let defaults = HistorySettings()
    var w = ObjectWriter(old)
    w.write(
      "perRequest", perRequest, default: defaults.perRequest, read: { $0.int($1, $2, atLeast: 0) },
      encode: { v, _ in .number(v) })
    w.write(
      "maxMB", maxMB, default: defaults.maxMB, read: { $0.number($1, $2) },
      encode: { v, _ in .number(v) })
    return .object(w.object)
  }
}

extension RetryPolicy {
  func json(merging old: JSONValue?) -> JSONValue {
    let defaults = RetryPolicy()
    var w = ObjectWriter(old)
    w.write("max", max, read: { $0.int($1, $2, atLeast: 0) }, encode: { v, _ in .number(v) })
    w.write(
      "delay", baseDelay, default: defaults.baseDelay, read: { $0.number($1, $2) },
      encode: { v, _ in .number(v) })
    w.write(
      "statuses", statuses, default: defaults.statuses,
      read: { r, v, p in r.retry(["statuses": v], p).map(\.statuses) },
      encode: { v, _ in .array(v.sorted().map { .number($0) }) })
    w.write(
      "methods", methods, default: defaults.methods,
      read: { r, v, p in r.retry(["methods": v], p).map(\.methods) },
      encode: { methods, _ in
        .array(
          (HTTPMethod.common.filter(methods.contains) + methods.subtracting(HTTPMethod.common).sorted { $0.rawValue < $1.rawValue })
            .map { .string($0.rawValue) })
      })
    return .object(w.object)
  }
}

extension CachePolicy {
  func json(merging old: JSONValue?) -> JSONValue {
    if let old, WorkspaceReader.decode({ $0.cache(old, .untracked) }) == self { return old }
    var object = JSONObject([("seconds", .number(seconds))])
    if version != 0 { object["version"] = .number(version) }
    if let sensitive { object["sensitive"] = .string(sensitive) }
    if let namespace { object["namespace"] = .string(namespace) }
    if !ignore.isEmpty { object["ignore"] = .array(ignore.map { .string($0) }) }
    if mode != .cacheElseNetwork { object["mode"] = .string(mode.rawValue) }
    if revalidate { object["revalidate"] = .bool(true) }
    if !vary.isEmpty { object["vary"] = .array(vary.map { .string($0) }) }
    return .object(object)
  }
}

extension Validation {
  func json(merging old: JSONValue?) -> JSONValue {
    let defaults = Validation()
    var w = ObjectWriter(old)
    w.write(
      "status", status, default: defaults.status, read: { $0.statusRanges($1, $2) },
      encode: { ranges, _ in Validation.json(status: ranges) })
    w.write(
      "json", json,
      read: { $0.shape($1, $2) },
      encode: { shape, _ in shape.json })
    w.write(
      "strict", strict, default: defaults.strict, read: { $0.bool($1, $2) },
      encode: { v, _ in .bool(v) })
    w.write(
      "requireBody", requireBody, default: defaults.requireBody, read: { $0.bool($1, $2) },
      encode: { v, _ in .bool(v) })
    return .object(w.object)
  }

  /// `200`, `[200, 299]`, or a list of codes and ranges that never reads as one range.
  static func json(status ranges: [ClosedRange<Int>]) -> JSONValue {
    func item(_ range: ClosedRange<Int>) -> JSONValue {
      range.lowerBound == range.upperBound
        ? .number(range.lowerBound) : [.number(range.lowerBound), .number(range.upperBound)]
    }
    if ranges.count == 1, let range = ranges.first {
      return range.lowerBound == range.upperBound
        ? .number(range.lowerBound) : [.number(range.lowerBound), .number(range.upperBound)]
    }
    var items = ranges.map(item)
    // Two bare codes would read as a range: spell the first as [code, code].
    if items.count == 2, let first = ranges.first, first.lowerBound == first.upperBound,
      case .number = items[1]
    {
      items[0] = [.number(first.lowerBound), .number(first.upperBound)]
    }
    return .array(items)
  }
}

extension JSONShape {
  /// The shape's JSON spelling, keys in their original order.
  var json: JSONValue {
    switch self {
    case .type(let type): .string(type.rawValue)
    case .array(let element): .array(element.map { [$0.json] } ?? [])
    case .object(let members, let order):
      .object(
        JSONObject(order.compactMap { key in members[key].map { (key: key, value: $0.json) } }))
    }
  }
}

extension [Variable] {
  /// `{"name": "value"}`; a value the file wrote as a number or boolean keeps that spelling while
  /// its text is unchanged.
  func json(merging old: JSONValue?) -> JSONValue {
    var object = JSONObject()
    for variable in self {
      if let previous = old?[variable.name],
        WorkspaceReader.decode({ $0.variableValue(previous, .untracked) }) == variable.value
      {
        object[variable.name] = previous
      } else {
        object[variable.name] = .string(variable.value)
      }
    }
    return .object(object)
  }
}
