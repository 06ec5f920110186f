import Foundation

/// What makes a response a success: a status range and, optionally, a JSON shape.
public struct Validation: Sendable, Equatable, Hashable {
  /// Accepted status codes (default 200–299).
  public var status: [ClosedRange<Int>]
  public var json: JSONShape?
  /// `null` fails a typed field (YTK lets it pass).
  public var strict: Bool
  /// An empty body fails a JSON validator (by default it passes).
  public var requireBody: Bool

  public init(
    status: [ClosedRange<Int>] = Validation.defaultStatus, json: JSONShape? = nil, strict: Bool = false,
    requireBody: Bool = false
  ) {
    self.status = status
    self.json = json
    self.strict = strict
    self.requireBody = requireBody
  }

  public func accepts(status code: Int) -> Bool { status.contains { $0.contains(code) } }

  /// The statuses accepted when a request says nothing: 200–299.
  public static let defaultStatus: [ClosedRange<Int>] = [200...299]

  /// `200-299`, `200-299, 418` as people write them.
  public var statusDescription: String {
    status.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
      .joined(separator: ", ")
  }
}

/// The JSON shape validator (docs/engine-rules.md, "The JSON shape validator"): a JSON document whose leaves are type names.
///
/// ```swift
/// let shape = try JSONShape(["id": "number", "tags": ["string"], "owner": ["id": "number"]])
/// shape.check(body, strict: false)  // nil, or "$.tags[3]: expected string, got number"
/// ```
public indirect enum JSONShape: Sendable, Equatable, Hashable {
  public enum TypeName: String, Sendable, CaseIterable, Hashable {
    case string, number, bool, object, array, null, any
  }

  case type(TypeName)
  /// Only these keys are checked; extra keys pass, a missing key fails.
  case object([String: JSONShape], order: [String])
  /// The element shape applies to every item; `nil` (written `[]`) accepts any array.
  case array(JSONShape?)

  /// Builds a shape from its JSON spelling; the error names the path of a bad leaf.
  public init(_ spec: JSONValue, path: JSONPath = .root) throws(JSONShapeError) {
    switch spec {
    case .string(let name):
      guard let type = TypeName(rawValue: name) else {
        throw JSONShapeError(
          path: path,
          message: "unknown type \"\(name)\"; use one of \(TypeName.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      self = .type(type)
    case .array(let items):
      if items.count > 1 {
        throw JSONShapeError(path: path, message: "an array shape has one element shape, found \(items.count)")
      }
      self = .array(try items.first.map { item throws(JSONShapeError) in try JSONShape(item, path: path.appending(0)) })
    case .object(let object):
      var members: [String: JSONShape] = [:]
      for member in object.members {
        members[member.key] = try JSONShape(member.value, path: path.appending(member.key))
      }
      self = .object(members, order: object.keys)
    default:
      throw JSONShapeError(
        path: path, message: "expected a type name such as \"string\", an object or an array, found \(spec.typeName)")
    }
  }

  /// The first mismatch, as `$.items[3].id: expected number, got string`; nil when the value fits.
  public func check(_ value: JSONValue, strict: Bool = false, path: JSONPath = .root) -> JSONShapeMismatch? {
    if value == .null, !strict {
      return nil  // YTK: null passes for any type
    }
    switch self {
    case .type(let type):
      if type == .any { return nil }
      if type == .null { return value == .null ? nil : mismatch(path, "null", value) }
      return value.typeName == type.rawValue ? nil : mismatch(path, type.rawValue, value)
    case .array(let element):
      guard case .array(let items) = value else { return mismatch(path, "array", value) }
      guard let element else { return nil }
      for (i, item) in items.enumerated() {
        if let failure = element.check(item, strict: strict, path: path.appending(i)) { return failure }
      }
      return nil
    case .object(let members, let order):
      guard case .object(let object) = value else { return mismatch(path, "object", value) }
      for key in order {
        guard let shape = members[key] else { continue }
        guard let member = object[key] else {
          return JSONShapeMismatch(path: path.appending(key), message: "missing")
        }
        if let failure = shape.check(member, strict: strict, path: path.appending(key)) { return failure }
      }
      return nil
    }
  }

  private func mismatch(_ path: JSONPath, _ expected: String, _ value: JSONValue) -> JSONShapeMismatch {
    JSONShapeMismatch(path: path, message: "expected \(expected), got \(value.typeName)")
  }
}

/// Where a JSON body does not fit its shape: `$.items[3].id: expected number, got string`.
public struct JSONShapeMismatch: Sendable, Equatable, CustomStringConvertible {
  public var path: JSONPath
  public var message: String
  public var description: String { "\(path): \(message)" }
}

public struct JSONShapeError: Error, Sendable, Equatable, CustomStringConvertible {
  public var path: JSONPath
  public var message: String
  public var description: String { "\(path): \(message)" }
}

/// Opt-in retries with Alamofire's defaults: 2 retries, 0.5 s × 2^n, idempotent methods,
/// 408 / 500 / 502 / 503 / 504 and retryable transport failures.
public struct RetryPolicy: Sendable, Equatable, Hashable {
  public var max: Int
  public var baseDelay: Double
  public var multiplier: Double
  public var methods: Set<HTTPMethod>
  public var statuses: Set<Int>
  /// The longest wait a server's `Retry-After` (on 429 and 503) gets; a longer one is cut to it.
  public var maxRetryAfter: Double

  public init(
    max: Int = 2, baseDelay: Double = 0.5, multiplier: Double = 2,
    methods: Set<HTTPMethod> = [.GET, .HEAD, .PUT, .DELETE, .OPTIONS],
    statuses: Set<Int> = [408, 500, 502, 503, 504], maxRetryAfter: Double = 60
  ) {
    self.max = max
    self.baseDelay = baseDelay
    self.multiplier = multiplier
    self.methods = methods
    self.statuses = statuses
    self.maxRetryAfter = maxRetryAfter
  }

  /// The wait before retry number `retry` (0-based) after a failed attempt that got `response`:
  /// the server's `Retry-After` on a 429 or 503 (at most `maxRetryAfter`), else the backoff
  /// (`delay(beforeRetry:)`). `fromServer` says which.
  public func wait(beforeRetry retry: Int, after response: Response?, now: Date = Date())
    -> (seconds: Double, fromServer: Bool)
  {
    if let response, RetryAfter.statuses.contains(response.status),
      let asked = RetryAfter.seconds(response.headers, now: now)
    {
      return (Swift.min(asked, maxRetryAfter.isFinite ? Swift.max(0, maxRetryAfter) : 60), true)
    }
    return (delay(beforeRetry: retry), false)
  }

  /// The longest wait before a retry, however large the base delay and the attempt count: a day.
  public static let longestDelay = 86_400.0

  /// Seconds to wait before retry number `retry` (0-based): 0.5, 1.0, 2.0…, at most
  /// `longestDelay` (never NaN or infinite, whatever the policy holds).
  public func delay(beforeRetry retry: Int) -> Double {
    var delay = baseDelay.isFinite ? Swift.max(0, baseDelay) : 0
    for _ in 0..<Swift.max(0, retry) where delay < Self.longestDelay {
      delay *= multiplier.isFinite ? Swift.max(0, multiplier) : 1
    }
    return Swift.min(delay.isNaN ? 0 : delay, Self.longestDelay)
  }

  /// Whether a failed attempt (0-based count of retries already made) should be retried.
  public func shouldRetry(method: HTTPMethod, error: ExchangeError, retriesSoFar: Int) -> Bool {
    guard retriesSoFar < max, methods.contains(method) else { return false }
    switch error.kind {
    case .transport: return error.transport?.isRetryable ?? false
    case .status: return error.status.map { statuses.contains($0) } ?? false
    case .validation, .usage, .cancelled, .notCached, .throttled, .authorization: return false
    }
  }
}
