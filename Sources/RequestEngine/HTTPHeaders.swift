/// Header fields in order, with case-insensitive names. Setting a name replaces every field of that
/// name (so the last of `x-a` / `X-A` wins); an empty value removes a header curl adds itself
/// (`Accept:` sends no Accept header) and sends any other empty (`isAddedByCurl`).
public struct HTTPHeaders: Sendable, Equatable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  public private(set) var fields: [(name: String, value: String)] = []

  /// The fields set in order, as by the subscript: one field per name (ASCII case folded), at
  /// the place of its first, with its last spelling and value. Linear in the fields: past a few,
  /// each name is found in a table, not by a scan of those before it.
  public init(_ fields: [(String, String)] = []) {
    guard fields.count > 8 else {
      for (name, value) in fields { self[name] = value }
      return
    }
    var places = [[UInt8]: Int](minimumCapacity: fields.count)
    self.fields.reserveCapacity(fields.count)
    for (name, value) in fields {
      let key = Self.foldedName(name)
      if let place = places[key] {
        self.fields[place] = (name, value)
      } else {
        places[key] = self.fields.count
        self.fields.append((name, value))
      }
    }
  }

  /// The bytes of `name` that `sameName` compares, ASCII letters lower-cased: two names are the
  /// same header exactly when these are equal (String equality would also join canonically
  /// equivalent names, which `sameName` keeps apart). A key for a table of names.
  public static func foldedName(_ name: String) -> [UInt8] {
    name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
  }

  public init(dictionaryLiteral elements: (String, String)...) {
    self.init(elements)
  }

  public subscript(name: String) -> String? {
    get { fields.last(where: { Self.sameName($0.name, name) })?.value }
    set {
      if let index = fields.firstIndex(where: { Self.sameName($0.name, name) }) {
        fields.removeAll { Self.sameName($0.name, name) }
        if let newValue { fields.insert((name, newValue), at: Swift.min(index, fields.count)) }
      } else if let newValue {
        fields.append((name, newValue))
      }
    }
  }

  /// Room for `count` fields, so a response's head is read into one array.
  public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

  /// Adds a field without replacing others of the same name (`Set-Cookie` in responses).
  public mutating func add(_ name: String, _ value: String) {
    fields.append((name, value))
  }

  public func contains(_ name: String) -> Bool { self[name] != nil }

  /// Whether curl (libcurl) adds a header of this name itself: then an empty value removes
  /// curl's (`Accept:` sends no Accept); any other header with an empty value is sent empty
  /// (`X-Empty:`), as `curl -H 'X-Empty;'` sends it.
  public static func isAddedByCurl(_ name: String) -> Bool {
    addedByCurl.contains(foldedName(name))
  }

  private static let addedByCurl: Set<[UInt8]> = Set(
    [
      "host", "user-agent", "accept", "accept-encoding", "te", "referer", "cookie", "authorization",
      "proxy-authorization", "proxy-connection", "connection", "range", "if-range", "transfer-encoding",
      "content-length", "content-type", "expect",
    ].map { Array($0.utf8) })

  public func values(_ name: String) -> [String] {
    fields.filter { Self.sameName($0.name, name) }.map(\.value)
  }

  /// `sameName` of two Strings, on their contiguous bytes when they have them (a response's
  /// header lookups make dozens of these per exchange).
  static func sameName(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    let compared = a.utf8.withContiguousStorageIfAvailable { x in
      b.utf8.withContiguousStorageIfAvailable { y in
        for i in 0..<x.count where !sameLetter(x[i], y[i]) { return false }
        return true
      }
    }
    // (nil when either String keeps no contiguous UTF-8: a bridged one)
    if case let result?? = compared { return result }
    return sameName(a[...], b[...])
  }

  /// Two bytes of a name, ASCII case folded.
  @inline(__always)
  private static func sameLetter(_ x: UInt8, _ y: UInt8) -> Bool {
    x == y || (x >= 0x41 && x <= 0x5A ? x | 0x20 : x) == (y >= 0x41 && y <= 0x5A ? y | 0x20 : y)
  }

  /// Header names compare ASCII case-insensitively (RFC 9110 §5.1), without allocating.
  static func sameName(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
    // Names of different lengths differ (most comparisons end here); ASCII case is folded.
    guard a.utf8.count == b.utf8.count else { return false }
    var i = a.utf8.makeIterator()
    var j = b.utf8.makeIterator()
    while true {
      switch (i.next(), j.next()) {
      case (nil, nil): return true
      case (let x?, let y?):
        if !sameLetter(x, y) { return false }
      default: return false
      }
    }
  }

  public var isEmpty: Bool { fields.isEmpty }
  public var count: Int { fields.count }

  public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
    fields.makeIterator()
  }

  public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
    a.fields.count == b.fields.count
      && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for field in fields {
      hasher.combine(field.name.lowercased())
      hasher.combine(field.value)
    }
  }
}
