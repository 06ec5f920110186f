import RequestEngine

// A request's `validate` block: shape, status codes and ranges.
extension WorkspaceReader {
  // MARK: - Validation

  mutating func validation(_ value: JSONValue, _ path: ReaderPath) -> Validation? {
    guard let object = object(value, path) else { return nil }
    var validation = Validation()
    let ok = clean { r in
      if let v = object["status"], let status = r.statusRanges(v, path.appending("status")) {
        validation.status = status
      }
      if let v = object["json"], v != .null, let shape = r.shape(v, path.appending("json")) {
        validation.json = shape
      }
      if let v = object["strict"], let flag = r.bool(v, path.appending("strict")) {
        validation.strict = flag
      }
      if let v = object["requireBody"], let flag = r.bool(v, path.appending("requireBody")) {
        validation.requireBody = flag
      }
    }
    return ok ? validation : nil
  }

  /// A JSON shape validator; a bad leaf is reported at its own position.
  mutating func shape(_ value: JSONValue, _ path: ReaderPath) -> JSONShape? {
    do throws(JSONShapeError) {
      return try JSONShape(value)
    } catch {
      fail(path.appending(error.path), error.message)
      return nil
    }
  }

  mutating func statusCode(_ value: JSONValue, _ path: ReaderPath) -> Int? {
    guard let code = int(value, path) else { return nil }
    guard (100...599).contains(code) else {
      fail(path, "a status code is between 100 and 599, found \(code)")
      return nil
    }
    return code
  }

  /// `200` (one code), `[200, 299]` (a range: an array of exactly two numbers), or a list whose
  /// items are codes or `[low, high]` ranges: `[[200, 299], 418]`.
  mutating func statusRanges(_ value: JSONValue, _ path: ReaderPath) -> [ClosedRange<Int>]? {
    switch value {
    case .number:
      return statusCode(value, path).map { [$0...$0] }
    case .array(let items):
      if items.isEmpty {
        fail(path, "list at least one status code or [low, high] range")
        return nil
      }
      if isRangeSpelling(items) { return statusRange(items, path).map { [$0] } }
      var ranges: [ClosedRange<Int>] = []
      let ok = clean { r in
        for (i, item) in items.enumerated() {
          let at = path.appending(i)
          if case .array(let pair) = item {
            if r.isRangeSpelling(pair) {
              if let range = r.statusRange(pair, at) { ranges.append(range) }
            } else {
              r.fail(at, "a status range is two codes, [low, high]")
            }
          } else if let code = r.statusCode(item, at) {
            ranges.append(code...code)
          }
        }
      }
      return ok ? ranges : nil
    default:
      expected("a status code, a [low, high] range or a list of them", value, path)
      return nil
    }
  }

  private func isRangeSpelling(_ items: [JSONValue]) -> Bool {
    items.count == 2 && items.allSatisfy { if case .number = $0 { true } else { false } }
  }

  private mutating func statusRange(_ pair: [JSONValue], _ path: ReaderPath) -> ClosedRange<Int>? {
    guard let low = statusCode(pair[0], path.appending(0)),
      let high = statusCode(pair[1], path.appending(1))
    else { return nil }
    guard low <= high else {
      fail(path, "a status range is [low, high], found [\(low), \(high)]")
      return nil
    }
    return low...high
  }
}
