import Formats
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// The words of a text, one array per command.
private func words(_ text: String) throws -> [[String]] {
  try ShellWords.split(text).map { $0.map(\.text) }
}

private func syntaxError(_ text: String) -> ShellSyntaxError? {
  do {
    _ = try ShellWords.split(text)
    Issue.record("expected \(text) to fail")
    return nil
  } catch {
    return error
  }
}

@Suite("ShellWords")
struct ImportShellWordsTests {
  @Test func plainWordsSplitOnBlanks() throws {
    #expect(try words("curl  -s\thttps://a.test/x") == [["curl", "-s", "https://a.test/x"]])
  }

  @Test func singleQuotesAreLiteral() throws {
    #expect(try words(#"curl 'a b $HOME \n "q"'"#) == [["curl", #"a b $HOME \n "q""#]])
  }

  @Test func doubleQuotesEscapeOnlyTheirSpecialCharacters() throws {
    #expect(try words(#"x "a \"b\" \\ \$ \n c""#) == [["x", #"a "b" \ $ \n c"#]])
  }

  @Test func quotesJoinIntoOneWord() throws {
    #expect(try words(#"-H'X: y' a"b"'c'd"#) == [["-HX: y", "abcd"]])
  }

  @Test func ansiCQuotingAsChromeWritesIt() throws {
    #expect(
      try words(#"--data-raw $'{"a":"b\'c","n":"l1\nl2","t":"\t","bs":"\\"}'"#)
        == [["--data-raw", "{\"a\":\"b'c\",\"n\":\"l1\nl2\",\"t\":\"\t\",\"bs\":\"\\\"}"]])
  }

  @Test func ansiCNumericEscapes() throws {
    #expect(try words(#"$'\x41\101\u00e9\U0001F600\e\cA'"#) == [["AAé😀\u{1B}\u{01}"]])
    // \x bytes that together form UTF-8.
    #expect(try words(#"$'\xc3\xa9'"#) == [["é"]])
  }

  @Test func backslashNewlineContinuesTheCommand() throws {
    #expect(
      try words("curl 'https://a.test' \\\n  -H 'a: b' \\\r\n  --compressed")
        == [["curl", "https://a.test", "-H", "a: b", "--compressed"]])
    // Inside a word, the continuation joins the two halves.
    #expect(try words("ab\\\ncd") == [["abcd"]])
  }

  @Test func caretContinuesAWindowsCmdLine() throws {
    #expect(try words("curl \"https://a.test\" ^\n  -k") == [["curl", "https://a.test", "-k"]])
  }

  @Test func windowsCmdQuotingAsksForTheBashCopy() {
    #expect(
      syntaxError(#"curl ^"https://a.test/^" ^\n  -H ^"accept: */*^""#)?.message
        == "this is Windows cmd quoting (^\"); copy the request as cURL (bash) instead")
  }

  @Test func newlinesSemicolonsAndAndAndSeparateCommands() throws {
    #expect(try words("a 1\nb 2; c 3 && d\n\n") == [["a", "1"], ["b", "2"], ["c", "3"], ["d"]])
  }

  @Test func commentsRunToTheEndOfTheLine() throws {
    #expect(try words("# a comment\na b#c # rest\n") == [["a", "b#c"]])
  }

  @Test func variablesBecomePlaceholders() throws {
    #expect(
      try words(#"-H "Authorization: Bearer $TOKEN" ${HOST}/x '$KEEP' a$"#)
        == [["-H", "Authorization: Bearer {{TOKEN}}", "{{HOST}}/x", "$KEEP", "a$"]])
  }

  @Test func wordsKnowWhereTheyStart() throws {
    let command = try #require(try ShellWords.split("curl \\\n  -sSZ 'x'").first)
    #expect(
      command.map(\.location) == [
        .init(line: 1, column: 1), .init(line: 2, column: 3), .init(line: 2, column: 8),
      ])
    #expect(command[1].isPlain && !command[2].isPlain)
    #expect(command[1].location(at: 3) == SourceLocation(line: 2, column: 6))
  }

  @Test func unterminatedQuotesPointAtTheOpeningQuote() {
    #expect(
      syntaxError("curl 'abc")
        == ShellSyntaxError(
          message: "this single quote is never closed", location: .init(line: 1, column: 6)))
    #expect(syntaxError("curl \\\n  \"abc")?.location == SourceLocation(line: 2, column: 3))
    #expect(syntaxError("x $'abc")?.message == "this $'…' quote is never closed")
  }

  @Test func commandsThatWouldRunSomethingAreRefused() {
    #expect(syntaxError("curl $(cat url)")?.location == SourceLocation(line: 1, column: 6))
    #expect(syntaxError("curl `cat url`")?.message.contains("command substitution") == true)
    #expect(
      syntaxError("curl x | jq .")?.message
        == "the shell operator | is not supported; import the curl command alone")
    #expect(syntaxError("curl x > out")?.location == SourceLocation(line: 1, column: 8))
  }
}
