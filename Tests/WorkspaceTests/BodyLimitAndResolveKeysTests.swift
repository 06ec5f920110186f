import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// The workspace keys `maxBodyMB` (workspace and request) and `resolve`.
@Suite struct BodyLimitAndResolveKeysTests {
  @Test func maxBodyMBFromTheRequestOrTheWorkspace() throws {
    let ws = try workspace(
      #"""
      {"version": 1, "maxBodyMB": 16, "resolve": ["api.test:443:127.0.0.1", "v6.test:80:[::1]"],
       "requests": [
         {"name": "own", "url": "http://127.0.0.1:1/a", "maxBodyMB": 0.5},
         {"name": "inherits", "url": "http://127.0.0.1:1/b"}
       ]}
      """#)
    #expect(try ws.prepare(requestNamed: "own").maxBodyBytes == 512 << 10)
    #expect(try ws.prepare(requestNamed: "inherits").maxBodyBytes == 16 << 20)
    #expect(ws.resolve.map(\.curlEntry) == ["api.test:443:127.0.0.1", "v6.test:80:[::1]"])
    let plain = try workspace(#"{"version": 1, "requests": [{"name": "r", "url": "http://127.0.0.1:1/"}]}"#)
    #expect(try plain.prepare(requestNamed: "r").maxBodyBytes == nil)  // the agent's 1024 MB
    // A save writes them back as they were.
    let again = try workspace(String(decoding: ws.encoded(), as: UTF8.self))
    #expect(again.maxBodyMB == 16)
    #expect(again.resolve == ws.resolve)
    #expect(again.request(named: "own")?.maxBodyMB == 0.5)
  }

  @Test func badValuesAreLoadErrorsWithTheirPlace() throws {
    let error = try #require(
      loadError(
        #"""
        {"version": 1, "maxBodyMB": 0,
         "resolve": ["api.test:443:127.0.0.1", "api.test:443:nowhere"],
         "requests": [{"name": "r", "url": "http://127.0.0.1:1/", "maxBodyMB": 1e300}]}
        """#))
    let text = error.description
    #expect(text.contains("test.json:1:29: maxBodyMB: must be more than 0 and at most 1048576 (MB), found 0"), "\(text)")
    #expect(text.contains(#"test.json:2:40: resolve[1]: "api.test:443:nowhere" has "nowhere", which is not an IP address"#), "\(text)")
    #expect(text.contains("requests[0].maxBodyMB: must be more than 0 and at most 1048576 (MB), found 1e300"), "\(text)")
  }
}
