import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

@Suite struct TemplateTests {
  @Test func splitsTextAndVariables() throws {
    let template = try Template("/users/{{id}}/posts/{{ post }}?x={{id}}")
    #expect(
      template.parts == [
        .text("/users/"), .variable("id"), .text("/posts/"), .variable("post"), .text("?x="),
        .variable("id"),
      ])
    #expect(template.variableNames == ["id", "post"])
  }

  @Test func rendersWithALookup() throws {
    let values = ["id": "7", "post": "a b"]
    let out = try Template("/users/{{id}}/posts/{{post}}").render { values[$0] ?? "?" }
    #expect(out == "/users/7/posts/a b")
  }

  @Test func plainTextAndLoneClosingBracesStayText() throws {
    #expect(try Template("no variables }} here").parts == [.text("no variables }} here")])
    #expect(try Template("").parts.isEmpty)
    #expect(try Template("{{env.HOME}}").variableNames == ["env.HOME"])
  }

  @Test func anUnclosedPlaceholderIsAnError() {
    #expect(
      throws: TemplateError(
        message: #""{{" has no closing "}}"; write a variable as {{name}}, two braces as {{'{{'}}"#, offset: 3)
    ) {
      try Template("ab {{id")
    }
  }

  @Test func anEmptyOrBadNameIsAnError() {
    #expect(throws: TemplateError.self) { try Template("{{}}") }
    #expect(throws: TemplateError.self) { try Template("{{a b}}") }
    #expect(throws: TemplateError.self) { try Template("{{{x}}}") }
  }

  /// `{{'{{'}}` is the text `{{`: a literal run joins the text around it, and `literal` writes any
  /// text so that it renders to itself, whatever braces it holds.
  @Test func twoBracesWrittenAsALiteralAreText() throws {
    #expect(try Template("a{{'{{'}}b}} {{ '{{' }}{{x}}").parts == [.text("a{{b}} {{"), .variable("x")])
    #expect(try Template("{{'{{'}}id}}").variableNames.isEmpty)
    let texts = [
      "Hi {{name}}!", "{{{triple}}}", "{{#if a}}x{{/if}}", "a{{", "{{", "{{{{", "}}{{}}", "{{'{{'}}",
      "{{ not closed", "plain", "", "{", "x{{y}}z{{",
    ]
    for text in texts {
      let written = Template.literal(text)
      let template = try Template(written)
      #expect(template.variableNames.isEmpty, "\(text)")
      #expect(try template.render { _ in "?" } == text, "\(text)")
    }
    #expect(Template.literal("no braces") == "no braces")
    #expect(Template.literal(.object(JSONObject([("{{k}}", .array(["{{v}}", 1]))])))
      == .object(JSONObject([("{{'{{'}}k}}", .array(["{{'{{'}}v}}", 1]))])))
  }
}
