import RequestEngine
import Workspace

/// A Postman request's body, by its `mode`, as postman-runtime sends it: see `PostmanImporter`.
extension PostmanImporter.Reader {
    func body(_ value: JSONValue, at path: JSONPath, name: String, into draft: inout RequestDraft)
      throws(ImportError)
    {
      func fail(_ message: String, _ at: JSONPath) -> ImportError {
        error("request \(JSONSerializer.quote(name)): \(message)", at: at)
      }
      if value["disabled"]?.boolValue == true { return }
      let mode = value["mode"]?.stringValue ?? "none"
      switch mode {
      case "none":
        return
      case "raw":
        let raw = value["raw"]?.stringValue ?? ""
        guard !raw.isEmpty else { return }
        let language = value["options"]?["raw"]?["language"]?.stringValue ?? "text"
        let types = [
          "json": "application/json", "xml": "application/xml", "html": "text/html",
          "javascript": "application/javascript", "text": "text/plain",
        ]
        // As written (JSON too), its type the Content-Type header, else the language's, as
        // postman-runtime adds one.
        draft.body = .text(raw, contentType: draft.headers["Content-Type"] == nil ? (types[language] ?? "text/plain") : nil)
      case "urlencoded":
        guard let items = value["urlencoded"]?.arrayValue else {
          throw fail("a urlencoded body needs an \"urlencoded\" list", path)
        }
        let enabled = items.filter { $0["disabled"]?.boolValue != true }
        // No enabled field: Postman sends no body.
        guard !enabled.isEmpty else { return }
        let pairs = enabled.map { item in
          PlaceholderEncoding.encode(Self.text(item["key"])) + "="
            + PlaceholderEncoding.encode(Self.text(item["value"]))
        }
        draft.setBody(pairs.joined(separator: "&"), defaultContentType: RequestDraft.formType)
      case "graphql":
        let graphql = value["graphql"]
        var object = JSONObject()
        object["query"] = .string(Self.text(graphql?["query"]))
        let variables = Self.text(graphql?["variables"]).trimmingSpaces()
        if !variables.isEmpty {
          do {
            object["variables"] = try JSONParser.parse(variables)
          } catch {
            throw fail(
              "the GraphQL variables are not valid JSON: \(error.message)",
              path.appending("graphql").appending("variables"))
          }
        }
        draft.body = .json(.object(object))
        if let header = draft.headers["Content-Type"],
          RequestDraft.restates(header, "application/json")
        {
          draft.headers["Content-Type"] = nil
        }
      case "formdata":
        guard let items = value["formdata"]?.arrayValue else {
          throw fail("a formdata body needs a \"formdata\" list", path)
        }
        var fields: [MultipartField] = []
        for (i, item) in items.enumerated() where item["disabled"]?.boolValue != true {
          let at = path.appending("formdata").appending(i)
          let key = Self.text(item["key"])
          guard !key.isEmpty else { throw fail("this form-data entry has no \"key\"", at) }
          let type = item["contentType"].map { Self.text($0).trimmingSpaces() }
            .flatMap { $0.isEmpty ? nil : $0 }
          guard item["type"]?.stringValue == "file" else {
            fields.append(MultipartField(name: key, value: Self.text(item["value"]), type: type))
            continue
          }
          var sources: [(String, JSONPath)] = []
          switch item["src"] {
          case .string(let src): sources = [(src, at.appending("src"))]
          case .array(let list):
            sources = list.enumerated().map { (Self.text($1), at.appending("src").appending($0)) }
          default: break
          }
          sources.removeAll { $0.0.isEmpty }
          guard !sources.isEmpty else {
            throw fail(
              "the form-data file \(JSONSerializer.quote(key)) has no file chosen (\"src\"); choose "
                + "one in Postman, or remove the entry", at)
          }
          for (src, srcPath) in sources {
            if let problem = RequestDraft.pathProblem(src) { throw fail(problem, srcPath) }
            fields.append(MultipartField(name: key, file: src, type: type))
          }
        }
        // No enabled part: Postman sends no body (not an empty multipart).
        guard !fields.isEmpty else { return }
        draft.setMultipart(fields)
      case "file":
        let file = value["file"]
        if let src = file?["src"]?.stringValue, !src.isEmpty {
          if let problem = RequestDraft.pathProblem(src) {
            throw fail(problem, path.appending("file").appending("src"))
          }
          draft.setFileBody(src, defaultContentType: nil)
        } else if let content = file?["content"]?.stringValue, !content.isEmpty {
          // An older export kept the file's text inline.
          draft.setBody(content, defaultContentType: nil)
        } else {
          throw fail(
            "the file body has no file chosen (\"src\"); choose one in Postman, or remove the body",
            path.appending("file"))
        }
      default:
        throw fail("unknown body mode \(JSONSerializer.quote(mode))", path.appending("mode"))
      }
    }
}
