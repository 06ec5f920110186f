/// One JSON object written member by member straight into UTF-8 bytes: the text
/// `JSONSerializer.compact` writes for the object of the same members, without making the
/// `JSONValue` first. For lines printed by the thousand (`run --json`'s stream events), where
/// building, serializing and freeing a value cost more than the line itself.
///
/// ```swift
/// var line = JSONObjectWriter()
/// line.member("event", "stream")
/// line.member("index", 3)
/// line.member("type", nil)
/// line.member("ms", tenths: 19)
/// line.end(appendingTo: &bytes)  // {"event":"stream","index":3,"type":null,"ms":1.9}
/// ```
/// Keys are `StaticString`s written as they are: names that need no escaping. The line is
/// written through a pointer into memory of its own (`ByteWriter`) and copied out at the end; a
/// writer kept for many lines (`reset`) allocates that memory once.
public struct JSONObjectWriter: ~Copyable {
  private var bytes = ByteWriter()
  private var empty = true
  /// Nothing written so far is outside ASCII: the text needs no look for the controls JSON
  /// leaves raw in non-ASCII text (C1, bidirectional; see `Output`).
  public private(set) var isASCII = true

  public init() {
    bytes.append("{")
  }

  /// Starts a new object in the same memory: a writer kept for many lines allocates once.
  public mutating func reset() {
    bytes.removeAll()
    bytes.append("{")
    empty = true
    isASCII = true
  }

  /// `"key":`, after a comma unless it is the first: written from the literal's own bytes (no closure
  /// for each key: a stream's lines have six).
  @inline(__always)
  private mutating func key(_ key: StaticString) {
    guard key.hasPointerRepresentation else { return key.withUTF8Buffer { self.key(bytes: $0) } }
    self.key(bytes: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
  }

  @inline(__always)
  private mutating func key(bytes name: UnsafeBufferPointer<UInt8>) {
    bytes.reserve(name.count + 4)
    if !empty { bytes.put(UInt8(ascii: ",")) }
    empty = false
    bytes.put(UInt8(ascii: "\""))
    bytes.put(name)
    bytes.put(UInt8(ascii: "\""))
    bytes.put(UInt8(ascii: ":"))
  }

  /// A string member, `null` for nil.
  public mutating func member(_ name: StaticString, _ value: String?) {
    key(name)
    guard let value else { return bytes.append("null") }
    bytes.reserve(1)
    bytes.put(UInt8(ascii: "\""))
    // Read where the string keeps its UTF-8 (no copy of it to make mutable, as `withUTF8` needs:
    // a retain and a release for every string of every line).
    let nonASCII =
      value.utf8.withContiguousStorageIfAvailable { JSONSerializer.quote(bytes: $0, into: &bytes) }
      ?? { (text: String) -> Bool in
        var text = text  // not stored as UTF-8 (a bridged string): made so
        return text.withUTF8 { JSONSerializer.quote(bytes: $0, into: &bytes) }
      }(value)
    if nonASCII { isASCII = false }
    bytes.reserve(1)
    bytes.put(UInt8(ascii: "\""))
  }

  public mutating func member(_ name: StaticString, _ value: Int) {
    key(name)
    bytes.appendDecimal(value)
  }

  public mutating func member(_ name: StaticString, _ value: Bool) {
    key(name)
    bytes.append(value ? "true" : "false")
  }

  /// A number given in tenths (`19` is `1.9`, `20` is `2`), as `JSONValue.number(Double(tenths)
  /// / 10)` writes it: one decimal, none when it is zero.
  public mutating func member(_ name: StaticString, tenths: Int) {
    key(name)
    if tenths < 0 && tenths > -10 { bytes.append("-") }  // -0.5: the sign the whole part loses
    bytes.appendDecimal(tenths / 10)
    let fraction = Int(tenths.magnitude % 10)
    if fraction != 0 {
      bytes.reserve(2)
      bytes.put(UInt8(ascii: "."))
      bytes.put(UInt8(ascii: "0") + UInt8(fraction))
    }
  }

  /// Any value, through the serializer.
  public mutating func member(_ name: StaticString, value: JSONValue) {
    key(name)
    var text: [UInt8] = []
    JSONSerializer.compact(value, into: &text)
    text.withUnsafeBufferPointer { bytes.append($0) }
    if isASCII && text.contains(where: { $0 >= 0x80 }) { isASCII = false }
  }

  /// Members written before, as they are (`membersText` of another writer): members every line
  /// of a kind starts with are written once, not again for each line.
  public mutating func members(_ written: JSONMembers) {
    guard !written.text.isEmpty else { return }
    if !empty { bytes.append(",") }
    empty = false
    written.text.withUnsafeBufferPointer { bytes.append($0) }
    if !written.isASCII { isASCII = false }
  }

  /// The members written so far, without the braces, for `members(_:)`.
  public consuming func membersText() -> JSONMembers {
    JSONMembers(text: bytes.withBytes { Array($0.dropFirst()) }, isASCII: isASCII)
  }

  /// Closes the object and appends its text to `out`.
  public mutating func end(appendingTo out: inout [UInt8]) {
    bytes.append("}")
    bytes.withBytes { out.append(contentsOf: $0) }
  }
}

/// Members of an object written once (`JSONObjectWriter.membersText`) to start many objects
/// (`members(_:)`), with whether their text is ASCII (looked at once, not for each object).
public struct JSONMembers: Sendable, Equatable {
  /// The members' text, without braces: `"event":"stream","id":7`.
  public let text: [UInt8]
  let isASCII: Bool

  /// No members.
  public init() {
    text = []
    isASCII = true
  }

  init(text: [UInt8], isASCII: Bool) {
    self.text = text
    self.isASCII = isASCII
  }
}
