/// Decides whether a response is a success, in the order of docs/engine-rules.md, "When is a
/// response a success": parse > status > JSON shape (transport errors never reach it). Pure:
/// tests call it with hand-made responses.
public enum ResponseValidator {
  public static func validate(_ response: Response, _ validation: Validation) -> ExchangeError? {
    var parsed: JSONValue?
    if validation.json != nil {
      switch parseBody(response, validation) {
      case .failure(let error): return error
      case .success(let value): parsed = value
      }
    }
    if !validation.accepts(status: response.status) {
      return .status(response.status, accepted: validation)
    }
    if let shape = validation.json, let parsed,
      let mismatch = shape.check(parsed, strict: validation.strict)
    {
      return ExchangeError(
        kind: .validation, message: mismatch.description, status: response.status,
        path: mismatch.path.description)
    }
    return nil
  }

  /// The body as JSON when the validator applies to it: nil for an empty body (unless
  /// `requireBody`) and for a body that is not JSON (docs/engine-rules.md, "When is a response a
  /// success": a JSON validator only applies when the body is JSON).
  private static func parseBody(_ response: Response, _ validation: Validation)
    -> Result<JSONValue?, ExchangeError>
  {
    let bytes: [UInt8]
    do {
      bytes = try response.body.bytes()
    } catch {
      return .failure(
        ExchangeError(kind: .validation, message: "cannot read the response body: \(error)", status: response.status, path: "$"))
    }
    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
      if validation.requireBody {
        return .failure(
          ExchangeError(
            kind: .validation, message: "$: expected a JSON body, got an empty body",
            status: response.status, path: "$"))
      }
      return .success(nil)
    }
    let looksJSON = bytes.first(where: { $0 > 0x20 }).map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") } ?? false
    guard response.isJSON || (response.mediaType == nil && looksJSON) else { return .success(nil) }
    do {
      return .success(try JSONParser.parse(bytes))
    } catch {
      return .failure(
        ExchangeError(
          kind: .validation,
          message: "$: the body is not valid JSON: \(error.message) at line \(error.location.line), column \(error.location.column) (byte \(error.offset))",
          status: response.status, path: "$"))
    }
  }
}
