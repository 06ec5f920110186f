import Foundation
import RequestEngine
import TestSupport
import Testing

/// Each command is sent by HTTPie itself (Debian's `http`) and, imported by `reqbench import
/// httpie -`, by `reqbench run`, both to the byte-recording server: the request line, the headers
/// in order and the body bytes are the same. Left out of the comparison: `User-Agent` (each tool
/// its own), `Accept-Encoding` (reqbench offers every coding it decodes, HTTPie `gzip, deflate`;
/// both send one), and `Content-Length`'s place (curl writes it after the other headers; its value
/// is compared).
@Suite("HTTPie commands sent by HTTPie and by reqbench")
struct HTTPieConformanceTests {
  /// What HTTPie and reqbench sent for `arguments` (HTTPie's, after `http`), `{P}` the server's
  /// port.
  func sent(_ arguments: String) throws -> (httpie: RecordingServer.Recorded, reqbench: RecordingServer.Recorded) {
    let server = try RecordingServer()
    defer { server.stop() }
    let folder = scratchURL("rb-httpie-conformance")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try "line one\nline two\n".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
    let command = "http " + arguments.replacingOccurrences(of: "{P}", with: String(server.port))

    let words = try ShellWordsForTests.split(command)
    let http = try runProcess(
      URL(fileURLWithPath: "/usr/bin/http"), ["--ignore-stdin"] + words.dropFirst(), currentDirectory: folder)
    #expect(http.status == 0, "http: \(http.stderr)")
    let theirs = try #require(server.waitFor(1).first, "HTTPie sent nothing")
    server.clear()

    let ws = folder.appendingPathComponent("ws.json").path
    let imported = try runProcess(
      try reqbenchBinary, ["import", "httpie", "-", "--into", ws, "--name", "r"], stdin: command, currentDirectory: folder)
    #expect(imported.status == 0, "import: \(imported.stderr)")
    let run = try runProcess(try reqbenchBinary, ["run", ws, "r", "--no-history", "--no-cookies"], currentDirectory: folder)
    #expect(run.status == 0, "run: \(run.stderr)")
    let mine = try #require(server.waitFor(1).first, "reqbench sent nothing")
    return (theirs, mine)
  }

  /// The differences left when the headers named above are set aside.
  func differences(_ arguments: String) throws -> [String] {
    let (theirs, mine) = try sent(arguments)
    var found = mine.differences(from: theirs, ignoring: ["User-Agent", "Accept-Encoding", "Content-Length"])
    if theirs.header("Accept-Encoding") != nil, mine.header("Accept-Encoding") == nil {
      found.append("reqbench sent no Accept-Encoding")
    }
    if mine.header("Content-Length") != theirs.header("Content-Length") {
      found.append("Content-Length: \(mine.header("Content-Length") ?? "none") ≠ \(theirs.header("Content-Length") ?? "none")")
    }
    return found
  }

  @Test(arguments: [
    // Headers: HTTPie's Accept and Connection, items of odd case, a header that replaces a default.
    ":{P}/plain",
    "127.0.0.1:{P}/items X-Trace:abc x-lower:1 ACCEPT:text/html",
    "127.0.0.1:{P}/x 'Accept:' X-A:1",
    "127.0.0.1:{P}/x Connection:close",
    // JSON items: strings, raw JSON, nested fields, numbers as Python writes them, non-ASCII.
    "POST 127.0.0.1:{P}/users name=ada age:=36 admin:=true 'tags[]=a' 'tags[]=b' 'address[city]=London'",
    "PUT 127.0.0.1:{P}/users/1 'meta:={\"n\": [1, 2.50, -0, 1E5]}' 'name=Ada Lovelace é 😀' 'quote=\"a\\b\"'",
    "127.0.0.1:{P}/x a=1 a=2 X-Trace:abc",
    "--json 127.0.0.1:{P}/x",
    // Query items with special bytes, after the URL's own query; the URL's own bytes.
    "127.0.0.1:{P}/search?page=2 'q==a b&c/é*~!' 'limit==5'",
    "'127.0.0.1:{P}/p ath/é?x=%41%2a+b&r=x y' 'z==1 2'",
    // Forms, and a form sent with GET.
    "--form POST 127.0.0.1:{P}/login user=ada 'note=a&b c' 'x=é*~!/'",
    "-f GET 127.0.0.1:{P}/search q=swift",
    "-f 127.0.0.1:{P}/x 'Content-Type:text/foo' a=1",
    // The body as given.
    "--raw '{\"a\":  [1, 2]}' POST 127.0.0.1:{P}/raw",
    "--raw 'plain text' 127.0.0.1:{P}/raw 'Content-Type:text/plain'",
    // The method: any token.
    "PATCH 127.0.0.1:{P}/users/7 name=Ada",
    // Auth: -a wins over an Authorization item.
    "-a ada:secret 127.0.0.1:{P}/me",
    "-A bearer -a tok-1 127.0.0.1:{P}/me",
    "-a ada:secret 127.0.0.1:{P}/me Authorization:Bearer-item",
  ])
  func theImportSendsWhatHTTPieSends(_ arguments: String) throws {
    #expect(try differences(arguments) == [], "\(arguments)")
  }

  /// Where reqbench cannot send what HTTPie sends, the difference is exactly this and no other.
  @Test func whatReqbenchSendsOtherwise() throws {
    // HTTPie's `Content-Length: 0` on a DELETE (any method but GET, HEAD and OPTIONS) without a
    // body: curl writes none for it. HTTPie's rule for the method: a first argument of letters
    // is the method, in capitals.
    #expect(try differences("DELETE 127.0.0.1:{P}/users/1 Authorization:Token-1") == ["Content-Length: none ≠ 0"])
    #expect(try differences("wHat 127.0.0.1:{P}/x") == ["Content-Length: none ≠ 0"])
    // `Name;` is an empty header to HTTPie; an empty value removes a header in a workspace.
    let empty = try sent("127.0.0.1:{P}/x 'X-Empty;' X-B:1")
    #expect(empty.httpie.header("X-Empty") == "" && empty.reqbench.header("X-Empty") == nil)
    let engines: Set<String> = ["User-Agent", "Accept-Encoding", "X-Empty"]
    let theirNames: [String] = empty.httpie.headers.map(\.name).filter { !engines.contains($0) }
    let myNames: [String] = empty.reqbench.headers.map(\.name).filter { !engines.contains($0) }
    #expect(theirNames == myNames)
    // A file item: multipart with each client's own boundary; the same parts.
    let upload = try sent("-f POST 127.0.0.1:{P}/upload title=cv notes@notes.txt")
    for part in ["name=\"title\"\r\n\r\ncv\r\n", "filename=\"notes.txt\"", "line one\nline two\n"] {
      #expect(String(decoding: upload.httpie.body, as: UTF8.self).contains(part))
      #expect(String(decoding: upload.reqbench.body, as: UTF8.self).contains(part), "\(upload.reqbench)")
    }
  }

  /// `Name:` removes a default header: HTTPie's `Accept`, and the `User-Agent` both send.
  @Test func anEmptyItemRemovesADefaultHeader() throws {
    let (theirs, mine) = try sent("127.0.0.1:{P}/x 'Accept:' 'User-Agent:'")
    #expect(theirs.header("Accept") == nil && mine.header("Accept") == nil, "\(mine)")
    #expect(mine.header("User-Agent") == nil, "\(mine)")
  }
}

/// The command's words, as `sh` splits them (the test's commands use single quotes only).
enum ShellWordsForTests {
  static func split(_ command: String) throws -> [String] {
    let shell = try runProcess(
      URL(fileURLWithPath: "/bin/sh"), ["-c", "for w in " + command + "; do printf '%s\\0' \"$w\"; done"])
    return shell.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
  }
}
