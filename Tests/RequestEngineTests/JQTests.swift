import RequestEngine
import Testing

@Suite("jq")
struct JQTests {
  let body = Array(#"{"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}], "token": "t"}"#.utf8)

  @Test func selectsValues() throws {
    #expect(try JQ.run(".token", input: body) == "\"t\"\n")
    #expect(try JQ.run(".users[].name", input: body) == "\"Ada\"\n\"Grace\"\n")
    #expect(try JQ.run(".users[0]", input: body, pretty: false) == #"{"id":1,"name":"Ada"}"# + "\n")
    #expect(try JQ.run(".users | length", input: body) == "2\n")
  }

  @Test func prettyPrintsWithTwoSpaces() throws {
    #expect(try JQ.run(".users[1]", input: body) == "{\n  \"id\": 2,\n  \"name\": \"Grace\"\n}\n")
  }

  @Test func compileErrorsAreReported() {
    #expect(throws: JQ.Failure.self) { try JQ.run(".users[", input: body) }
    do {
      _ = try JQ.run(".users[", input: body)
    } catch {
      #expect(error.message.contains("syntax error") || error.message.contains("compile"))
    }
  }

  @Test func runtimeErrorsAndInvalidInput() {
    do {
      _ = try JQ.run(".token.x", input: body)
      Issue.record("expected an error")
    } catch {
      #expect(error.message.contains("Cannot index string"))
    }
    do {
      _ = try JQ.run(".", input: Array("<html>".utf8))
      Issue.record("expected an error")
    } catch {
      #expect(error.message.hasPrefix("the body is not JSON"))
    }
  }
}
