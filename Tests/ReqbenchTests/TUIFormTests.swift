import Foundation
import RequestEngine
import TestSupport
import Testing

/// Editing a request like a form, with the real binary in tmux: a request made with `n`, a
/// header switched off, the body's type chosen from the list, the body written in `$EDITOR`,
/// sent to the fixture server (what it received is checked), saved (the file is checked).
@Suite("TUI end to end: the editor as a form (tmux)", .serialized)
struct TUIFormTests {
  @Test func makeARequestGiveItAJSONBodySwitchAHeaderOffSendAndSave() throws {
    let folder = scratchURL("rb-form")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("api.json").path
    // $EDITOR writes the body (with the line break editors end a file with).
    let script = folder.appendingPathComponent("editor.sh").path
    try """
      #!/bin/sh
      printf '{"name": "Ada"}\\n' > "$1"
      case "$1" in *.json) ;; *) echo "not a .json file: $1" >&2; exit 3 ;; esac
      """.write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let key = uniqueKey("form")
    let url = try TestServer.fixture.url("/anything?key=\(key)")

    let session = try TmuxSession([try reqbenchBinary.path, file], environment: ["EDITOR": script, "VISUAL": ""])
    try session.waitFor("new workspace")
    try session.newRequest("POST \(url)")
    try session.type("people/add")
    try session.send("Enter")
    let added = try session.waitFor("added people/add")
    #expect(added.contains("Name       people/add"), "\(added)")

    // The URL is focused; its query became a parameter line (key=…), so the header "+ add" line is
    // three below. Two headers, the first off.
    #expect(added.contains("Query      key=\(key)"), "\(added)")
    try session.send("j", "j", "j")
    try session.send("e")
    try session.type("X-Debug: 1")
    try session.send("Enter")
    try session.waitFor("changed header")
    try session.send("Space")
    let off = try session.waitFor("header X-Debug off")
    #expect(off.contains("X-Debug: 1  off (space turns it on)"), "\(off)")
    // A mistake first: space on the "+ add" line says what space does.
    try session.send("j", "Space")
    try session.waitFor("space switches a header or a query parameter off and on")
    try session.send("e")
    try session.type("X-Keep: yes")
    try session.send("Enter")
    try session.waitFor("changed header")

    // Body: the type list, json, then the body in $EDITOR (a .json file).
    try session.send("j", "j", "Enter")
    let list = try session.waitFor("Body type")
    #expect(list.contains("● none"), "\(list)")
    #expect(list.contains("application/json, E writes it"), "\(list)")
    try session.send("j", "Enter")
    try session.waitFor("body type json: sent as application/json")
    try session.send("E")
    let edited = try session.waitFor("body updated")
    #expect(edited.contains(#"json {"name":"Ada"}  → application/json"#), "\(edited)")

    try session.send("s")
    try session.waitFor("✓ succeeded")
    // The echo's end shows the body as the server read it.
    try session.send("3", "G")
    try session.waitFor(#""body": "{\"name\":\"Ada\"}""#)
    let log = try #require(try fixtureJSON("/log?key=\(key)").arrayValue)
    #expect(log.count == 1)
    let headers = try #require(log.first?["headers"]?.objectValue)
    func header(_ name: String) -> String? {
      headers.members.first { $0.key.lowercased() == name.lowercased() }?.value.stringValue
    }
    #expect(log.first?["method"]?.stringValue == "POST")
    #expect(log.first?["received"]?.intValue == 14, "the compact JSON body, no line break")
    #expect(header("Content-Type") == "application/json")
    #expect(header("X-Keep") == "yes")
    #expect(header("X-Debug") == nil, "a header switched off is not sent")

    try session.send("C-s")
    try session.waitFor("created \(file)")
    let saved = try JSONParser.parse(Array(try String(contentsOfFile: file, encoding: .utf8).utf8))
    let request = try #require(saved["requests"]?.arrayValue?.first)
    #expect(request["name"] == "people/add")
    #expect(request["method"] == "POST")
    #expect(request["headers"] == ["X-Debug": ["value": "1", "enabled": false], "X-Keep": "yes"])
    #expect(request["body"] == ["json": ["name": "Ada"]])
    try session.quit()
  }
}
