import RequestEngine
import Testing

@Suite("Validators")
struct ValidationTests {
  func response(_ status: Int, _ body: String, type: String? = "application/json") -> Response {
    var headers = HTTPHeaders()
    if let type { headers["Content-Type"] = type }
    return Response(status: status, headers: headers, body: .memory(Array(body.utf8)))
  }

  func shape(_ spec: JSONValue) throws -> Validation {
    Validation(json: try JSONShape(spec))
  }

  @Test func defaultStatusRange() {
    for ok in [200, 204, 299] {
      #expect(ResponseValidator.validate(response(ok, ""), Validation()) == nil)
    }
    for bad in [199, 300, 404, 500] {
      let error = ResponseValidator.validate(response(bad, "x"), Validation())
      #expect(error?.kind == .status)
      #expect(error?.status == bad)
      #expect(error?.message == "status \(bad) is outside 200-299")
    }
  }

  @Test func customStatusRanges() {
    let validation = Validation(status: [418...418])
    #expect(ResponseValidator.validate(response(418, ""), validation) == nil)
    #expect(ResponseValidator.validate(response(200, ""), validation)?.message == "status 200 is outside 418")
  }

  // The JSON shape: extra keys pass, a missing key fails, `null` passes unless strict, nested
  // objects, an array's one element shape, `[]` any array.
  @Test func extraKeysPassMissingKeysFail() throws {
    let v = try shape(["nick": "string", "level": "number"])
    #expect(ResponseValidator.validate(response(200, #"{"nick":"a","level":3,"extra":1}"#), v) == nil)
    let missing = ResponseValidator.validate(response(200, #"{"nick":"a"}"#), v)
    #expect(missing?.kind == .validation)
    #expect(missing?.path == "$.level")
    #expect(missing?.message == "$.level: missing")
  }

  @Test func nullPassesUnlessStrict() throws {
    var v = try shape(["level": "number"])
    #expect(ResponseValidator.validate(response(200, #"{"level":null}"#), v) == nil)
    v.strict = true
    #expect(ResponseValidator.validate(response(200, #"{"level":null}"#), v)?.message == "$.level: expected number, got null")
  }

  @Test func wrongTypeNamesThePath() throws {
    let v = try shape(["items": [["id": "number"]]])
    let error = ResponseValidator.validate(
      response(200, #"{"items":[{"id":1},{"id":2},{"id":3},{"id":"4"}]}"#), v)
    #expect(error?.message == "$.items[3].id: expected number, got string")
    #expect(error?.path == "$.items[3].id")
  }

  @Test func arrays() throws {
    let strings = try shape(["string"])
    #expect(ResponseValidator.validate(response(200, #"["a","b"]"#), strings) == nil)
    #expect(ResponseValidator.validate(response(200, #"["a",1]"#), strings)?.path == "$[1]")
    #expect(ResponseValidator.validate(response(200, "[]"), strings) == nil)
    let any = try shape([])
    #expect(ResponseValidator.validate(response(200, #"[1,"x",{}]"#), any) == nil)
    #expect(ResponseValidator.validate(response(200, #"{"a":1}"#), any)?.message == "$: expected array, got object")
  }

  @Test func nestedObjects() throws {
    let ok = try shape(["son": ["age": "number"], "name": "string"])
    #expect(ResponseValidator.validate(response(200, #"{"son":{"age":14},"name":"x"}"#), ok) == nil)
    let bad = try shape(["son": "object", "name": "number"])
    #expect(ResponseValidator.validate(response(200, #"{"son":{"age":14},"name":"x"}"#), bad)?.path == "$.name")
  }

  @Test func emptyBodyPassesUnlessRequired() throws {
    var v = try shape(["id": "number"])
    #expect(ResponseValidator.validate(response(200, ""), v) == nil)
    #expect(ResponseValidator.validate(response(200, " "), v) == nil)
    v.requireBody = true
    #expect(ResponseValidator.validate(response(200, ""), v)?.kind == .validation)
  }

  @Test func invalidJSONReportsWhere() throws {
    let v = try shape(["id": "number"])
    let error = ResponseValidator.validate(response(200, #"{"id": 1,"#), v)
    #expect(error?.kind == .validation)
    #expect(error?.message.contains("not valid JSON") == true)
    #expect(error?.message.contains("byte 9") == true)
  }

  @Test func nonJSONBodiesAreNotShapeChecked() throws {
    let v = try shape(["id": "number"])
    #expect(ResponseValidator.validate(response(200, "<html></html>", type: "text/html"), v) == nil)
  }

  // docs/engine-rules.md's order: parse > status > shape.
  @Test func parseErrorComesBeforeStatusAndStatusBeforeShape() throws {
    let v = try shape(["id": "number"])
    #expect(ResponseValidator.validate(response(500, "{oops"), v)?.kind == .validation)
    #expect(ResponseValidator.validate(response(500, #"{"id":"x"}"#), v)?.kind == .status)
  }

  @Test func badShapesNameThePath() throws {
    let error = try #require(throws: JSONShapeError.self) { try JSONShape(["a": ["b": "numbr"]]) }
    #expect(error.description.hasPrefix("$.a.b: unknown type \"numbr\""), "\(error.description)")
  }
}
