import Digest
import JSON
import Synchronization

/// A user of the demo API.
struct User: Sendable {
  var id: Int
  var name: String
  var email: String
  var role: String

  var json: JSONValue {
    .obj(["id": .int(id), "name": .string(name), "email": .string(email), "role": .string(role)])
  }
}

/// The demo's in-memory users and login tokens.
final class UserStore: Sendable {
  private struct State {
    var users: [User] = [
      User(id: 1, name: "Ada Lovelace", email: "ada@example.com", role: "admin"),
      User(id: 2, name: "Alan Turing", email: "alan@example.com", role: "editor"),
      User(id: 3, name: "Grace Hopper", email: "grace@example.com", role: "editor"),
      User(id: 4, name: "Edsger Dijkstra", email: "edsger@example.com", role: "viewer"),
      User(id: 5, name: "Barbara Liskov", email: "barbara@example.com", role: "viewer"),
    ]
    var nextID = 6
    var tokens: [String: Int] = [:]
  }

  /// Login names and passwords (user id).
  static let credentials: [String: (password: String, id: Int)] = [
    "ada": ("lovelace", 1),
    "grace": ("hopper", 3),
  ]

  private let state = Mutex(State())

  var all: [User] { state.withLock { $0.users } }

  func user(_ id: Int) -> User? { state.withLock { s in s.users.first(where: { $0.id == id }) } }

  func create(name: String, email: String?, role: String?) -> User {
    state.withLock { s in
      let id = s.nextID
      s.nextID += 1
      let user = User(
        id: id, name: name, email: email ?? Self.defaultEmail(name, id), role: role ?? "viewer")
      s.users.append(user)
      return user
    }
  }

  /// Applies `change` to the user; false when there is no such user.
  func update(_ id: Int, _ change: (inout User) -> Void) -> Bool {
    state.withLock { s in
      guard let index = s.users.firstIndex(where: { $0.id == id }) else { return false }
      change(&s.users[index])
      return true
    }
  }

  func delete(_ id: Int) -> Bool {
    state.withLock { s in
      guard let index = s.users.firstIndex(where: { $0.id == id }) else { return false }
      s.users.remove(at: index)
      s.tokens = s.tokens.filter { $0.value != id }
      return true
    }
  }

  func issueToken(for id: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    let token = hexString((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    state.withLock { $0.tokens[token] = id }
    return token
  }

  func user(forToken token: String) -> User? {
    state.withLock { s in
      guard let id = s.tokens[token] else { return nil }
      return s.users.first(where: { $0.id == id })
    }
  }

  static func defaultEmail(_ name: String, _ id: Int) -> String {
    let local = name.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    return (local.isEmpty ? "user\(id)" : String(String.UnicodeScalarView(local))) + "@example.com"
  }
}

/// Counters for the demo's flaky endpoint.
final class DemoCounters: Sendable {
  private let flaky = Atomic<Int>(0)

  /// 1 for the first call, 2 for the second, ...
  func nextFlakyCall() -> Int { flaky.add(1, ordering: .relaxed).newValue }
}

extension App {
  func index(_ request: ServerRequest) -> ServerResponse {
    let endpoints: [(String, String, String)] = [
      ("GET", "/users", "list the users"),
      ("GET", "/users/{id}", "one user (404 when there is none)"),
      ("POST", "/users", "create a user from {\"name\": ...}"),
      ("PUT", "/users/{id}", "replace a user"),
      ("PATCH", "/users/{id}", "change some fields of a user"),
      ("DELETE", "/users/{id}", "delete a user"),
      ("POST", "/auth/login", "log in with {\"user\": \"ada\", \"password\": \"lovelace\"}"),
      ("GET", "/me", "the logged-in user (Authorization: Bearer <token>)"),
      ("POST", "/oauth/token", "OAuth 2.0 client_credentials token endpoint (client demo / demo-secret)"),
      ("GET", "/oauth/report", "a report for an OAuth 2.0 token from /oauth/token"),
      ("GET", "/slow", "answers after 1.5 s"),
      ("GET", "/trickle", "20 bytes over about 4 s"),
      ("GET", "/flaky-demo", "fails with 503 every other call"),
      ("GET", "/files/big.bin?size=N", "a large download with Range and ETag (default 50 MB)"),
      ("GET", "/files/small.json", "a small JSON file"),
      ("GET", "/sse/ticker?interval=S&count=N", "server-sent events: a tick every S seconds (Last-Event-ID resumes)"),
      ("POST", "/sse/chat", "a chat-like completion streamed token by token from {\"prompt\": ...}"),
      ("GET", "/ndjson?count=N&interval=S", "an NDJSON feed: one JSON object a line"),
      ("ANY", "/anything", "echoes the request"),
      ("ANY", "/upload?rate=B", "reports an upload: length, SHA-256, multipart parts; rate=B reads B bytes/s"),
    ]
    return .json(
      200,
      .obj([
        "name": "reqbench demo server",
        "endpoints": .array(
          endpoints.map { .obj(["method": .string($0.0), "path": .string($0.1), "description": .string($0.2)]) }),
      ]))
  }

  /// The body as a JSON object, or the 400/413 to answer.
  private func jsonObject(_ request: ServerRequest) -> BodyResult {
    guard !request.bodyTruncated else { return .failure(.error(413, "body too large")) }
    let value: JSONValue
    do {
      value = try JSONParser.parse(request.body)
    } catch {
      return .failure(.error(400, error.description))
    }
    guard value.isObject else { return .failure(.error(400, "expected a JSON object")) }
    return .success(value)
  }

  func usersEndpoint(_ request: ServerRequest, _ rest: [String]) -> ServerResponse {
    if rest.isEmpty {
      if let refusal = requireMethod(request, ["GET", "POST"]) { return refusal }
      if request.method != "POST" { return .json(200, .array(users.all.map(\.json))) }
      let body: JSONValue
      switch jsonObject(request) {
      case .failure(let refusal): return refusal
      case .success(let value): body = value
      }
      guard let name = body["name"]?.stringValue, !name.trimmingSpaces.isEmpty else {
        return .error(400, "name is required")
      }
      let user = users.create(name: name, email: body["email"]?.stringValue, role: body["role"]?.stringValue)
      return ServerResponse.json(201, user.json).header("Location", "/users/\(user.id)")
    }
    guard rest.count == 1 else { return .error(404, "not found: \(request.path)") }
    guard let id = parseNonNegativeInt(Substring(rest[0])) else { return .error(404, "no user \(rest[0])") }
    if let refusal = requireMethod(request, ["GET", "PUT", "PATCH", "DELETE"]) { return refusal }
    switch request.method {
    case "GET", "HEAD":
      guard let user = users.user(id) else { return .error(404, "no user \(id)") }
      return .json(200, user.json)
    case "DELETE":
      return users.delete(id) ? ServerResponse(status: 204, body: .none) : .error(404, "no user \(id)")
    default:  // PUT, PATCH
      let body: JSONValue
      switch jsonObject(request) {
      case .failure(let refusal): return refusal
      case .success(let value): body = value
      }
      let name = body["name"]?.stringValue
      if request.method == "PUT", name?.trimmingSpaces.isEmpty ?? true { return .error(400, "name is required") }
      let replace = request.method == "PUT"
      let found = users.update(id) { user in
        if let name, !name.trimmingSpaces.isEmpty { user.name = name }
        if let email = body["email"]?.stringValue {
          user.email = email
        } else if replace {
          user.email = UserStore.defaultEmail(user.name, id)
        }
        if let role = body["role"]?.stringValue {
          user.role = role
        } else if replace {
          user.role = "viewer"
        }
      }
      return found ? ServerResponse(status: 204, body: .none) : .error(404, "no user \(id)")
    }
  }

  func login(_ request: ServerRequest) -> ServerResponse {
    if let refusal = requireMethod(request, ["POST"]) { return refusal }
    let body: JSONValue
    switch jsonObject(request) {
    case .failure(let refusal): return refusal
    case .success(let value): body = value
    }
    guard let name = body["user"]?.stringValue, let password = body["password"]?.stringValue,
      let entry = UserStore.credentials[name.lowercased()], entry.password == password,
      let user = users.user(entry.id)
    else {
      return .error(401, "wrong user or password")
    }
    let token = users.issueToken(for: user.id)
    // An ETag names the user's record, so a chain can capture `header:ETag` from the login.
    return .json(200, .obj(["token": .string(token), "user": .obj(["id": .int(user.id), "name": .string(user.name)])]))
      .header("ETag", "\"user-\(user.id)\"")
  }

  func me(_ request: ServerRequest) -> ServerResponse {
    if let refusal = requireMethod(request, ["GET"]) { return refusal }
    guard let token = Self.bearerToken(request) else {
      return ServerResponse.error(401, "log in first: POST /auth/login, then send Authorization: Bearer <token>")
        .header("WWW-Authenticate", "Bearer")
    }
    guard let user = users.user(forToken: token) else {
      return ServerResponse.error(401, "unknown or expired token").header("WWW-Authenticate", #"Bearer error="invalid_token""#)
    }
    return .json(200, user.json)
  }

  func slow(_ request: ServerRequest, _ context: Context) -> ServerResponse {
    guard context.sleep(1.5) else { return .dropped }
    return .json(200, .obj(["message": "thanks for waiting", "delay": .double(1.5)]))
  }

  func trickle(_ request: ServerRequest, _ context: Context) -> ServerResponse {
    let text = Array("slowly but surely!\n".utf8) + [UInt8(ascii: ".")]  // 20 bytes
    return ServerResponse(
      status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")],
      body: .stream(length: text.count) { stream in
        for (i, byte) in text.enumerated() {
          if i > 0, !stream.sleep(0.2) { return stream.drop() }
          try stream.write([byte])
        }
      })
  }

  func flakyDemo(_ request: ServerRequest) -> ServerResponse {
    let call = demoCounters.nextFlakyCall()
    if call % 2 == 1 {
      return ServerResponse.error(503, "temporarily unavailable (call \(call)); try again").header("Retry-After", "1")
    }
    return .json(200, .obj(["ok": .bool(true), "call": .int(call)]))
  }
}

/// A parsed JSON body, or the response refusing it.
enum BodyResult {
  case success(JSONValue)
  case failure(ServerResponse)
}
