import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// The editor's Compressed, Proxy and No proxy fields: edited in place like the other request
/// settings, checked as the workspace file checks them.
@Suite("update: compressed and proxy fields")
struct ProxyFieldTests {
  @Test func theFieldsEditInPlaceAndBadValuesSayWhy() throws {
    var template = RequestTemplate(name: "r", url: "/x")
    #expect(template.editorFields.map(\.label).suffix(3) == ["Compressed", "Proxy", "No proxy"])
    template = try template.applying("http://proxy.test:3128", to: .proxy)
    #expect(template.proxy == "http://proxy.test:3128")
    #expect(template.editorFields.first { $0.kind == .proxy }?.value == "http://proxy.test:3128")
    #expect(try template.applying("{{proxy}}", to: .proxy).proxy == "{{proxy}}")
    #expect(try template.applying("", to: .proxy).proxy == nil)
    let error = #expect(throws: EditError.self) { try template.applying("ftp://p.test", to: .proxy) }
    #expect(
      error?.message
        == #"the proxy scheme "ftp" is not one reqbench speaks; use http, https, socks4, socks4a, socks5, socks5h (empty for none)"#)
    #expect(try template.applying("localhost,.internal", to: .noProxy).noProxy == "localhost,.internal")
    #expect(try template.applying("off", to: .compressed).compressed == false)
    #expect(throws: EditError.self) { try template.applying("sometimes", to: .compressed) }
  }

  /// Typing a proxy into the editor of the first request changes it (and the screen shows it).
  @Test(arguments: [(160, 45), (80, 24)]) func typingAProxy(width: Int, height: Int) throws {
    var state = try demoState(width: width, height: height)
    let fields = try #require(state.selectedRequest).editorFields
    let index = try #require(fields.firstIndex { $0.kind == .proxy })
    _ = keys(&state, "2" + String(repeating: "j", count: index) + "e")
    _ = keys(&state, "http://127.0.0.1:3128")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.proxy == "http://127.0.0.1:3128")
    #expect(state.hasUnsavedEdits)
    try assertSnapshot(state, "proxy-field-\(width)x\(height)")
  }
}
