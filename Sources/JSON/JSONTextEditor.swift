/// Writes a new JSON value over the text an old value was parsed from, keeping the source text of
/// everything that did not change.
///
/// A value equal to the old one at the same place is copied byte for byte (its spacing, line
/// breaks, number spelling and string escapes); an object or array that changed keeps the text of
/// its unchanged members and elements and of the whitespace between them, and only changed, added
/// or removed members are written anew. New members follow the container's style: on one line
/// when the container, or every compound sibling in it, is on one line; otherwise one per line
/// at the siblings' indentation, nested values indented by the file's own unit (two spaces when
/// the file shows none). A flat object or array (scalars only) that replaces a scalar stays on
/// the scalar's line.
///
/// ```swift
/// let old = Array(#"{"a": 1,   "b": [1,2]}"#.utf8)
/// var value = try JSONParser.parse(old)          // {"a": 1, "b": [1, 2]}
/// value = ["a": 1, "b": [1, 2], "c": true]
/// JSONTextEditor.write(value, over: old)          // {"a": 1,   "b": [1,2], "c": true}
/// ```
public enum JSONTextEditor {
  /// The new text, or nil when `source` is not valid JSON.
  public static func write(_ value: JSONValue, over source: [UInt8]) -> [UInt8]? {
    guard let (old, root) = try? JSONParser.parseLayout(source) else { return nil }
    let rootStart = root.start
    let editor = Editor(source: source, unit: indentUnit(source))
    var out = Array(source[..<rootStart])
    editor.render(value, old: old, node: root, preferOneLine: false, into: &out)
    out += source[root.end...]
    return out
  }

  // MARK: - The source's layout

  /// Where each value and the whitespace around it are in the source: the parser's
  /// (`JSONParser.parseLayout`), read in the same pass as the value.
  typealias Node = JSONLayoutNode

  /// The file's indentation step: the leading whitespace of the first indented line that follows
  /// an unindented one (a tab or N spaces); two spaces when no line is indented.
  static func indentUnit(_ bytes: [UInt8]) -> [UInt8] {
    var smallest: [UInt8]? = nil
    var index = 0
    while index < bytes.count {
      guard bytes[index] == 0x0A else { index += 1; continue }
      index += 1
      var end = index
      while end < bytes.count, bytes[end] == 0x20 || bytes[end] == 0x09 { end += 1 }
      if end > index, end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D {
        let indent = Array(bytes[index..<end])
        if indent.first == 0x09 { return [0x09] }
        if smallest == nil || indent.count < smallest!.count { smallest = indent }
      }
      index = end
    }
    return smallest ?? [0x20, 0x20]
  }

  // MARK: - Writing

  struct Editor {
    let source: [UInt8]
    let unit: [UInt8]

    func text(_ range: Range<Int>) -> ArraySlice<UInt8> { source[range] }

    func hasNewline(_ range: Range<Int>) -> Bool { source[range].contains(0x0A) }

    /// The leading whitespace of the line `offset` is on.
    func lineIndent(at offset: Int) -> [UInt8] {
      var start = offset
      while start > 0, source[start - 1] != 0x0A { start -= 1 }
      var end = start
      while end < offset, source[end] == 0x20 || source[end] == 0x09 { end += 1 }
      return Array(source[start..<end])
    }

    /// The indentation a lead puts its item at: what follows its last line break, else (the item
    /// is on the container's line) the container's line indentation plus one unit.
    func indent(afterLead lead: [UInt8], container: Node) -> [UInt8] {
      if let newline = lead.lastIndex(of: 0x0A) { return Array(lead[(newline + 1)...]) }
      return lineIndent(at: container.start) + unit
    }

    func render(
      _ value: JSONValue, old: JSONValue, node: Node, preferOneLine: Bool, into out: inout [UInt8]
    ) {
      if value == old {
        out += text(node.start..<node.end)
        return
      }
      switch (value, old) {
      case (.object(let new), .object(let previous)):
        renderObject(new, old: previous, node: node, into: &out)
      case (.array(let new), .array(let previous)):
        renderArray(new, old: previous, node: node, into: &out)
      default:
        let wasOneLine = !old.isScalar && !hasNewline(node.start..<node.end)
        // A flat object or array (scalars only) that replaces a scalar keeps to its line:
        // `"X-Debug": "1"` → `"X-Debug": {"value": "1", "enabled": false}`.
        let staysOnItsLine = old.isScalar && JSONTextEditor.isFlat(value)
        out += fresh(
          value, indent: lineIndent(at: node.start), oneLine: preferOneLine || wasOneLine || staysOnItsLine)
      }
    }

    /// Whether new items of `node` go on one line: it is on one line, or all its compound items
    /// are written compactly (several members to a line, not one per line).
    func prefersOneLine(_ node: Node) -> Bool {
      if !hasNewline(node.start..<node.end) { return true }
      let compound = node.items.filter {
        source[$0.value.start] == UInt8(ascii: "{") || source[$0.value.start] == UInt8(ascii: "[")
      }
      return !compound.isEmpty && compound.allSatisfy { isCompact($0.value) }
    }

    /// Fewer line breaks than members: `{"a": 1, "b": 2}`, or a long one wrapped once.
    func isCompact(_ node: Node) -> Bool {
      source[node.start..<node.end].lazy.filter { $0 == 0x0A }.count < max(node.items.count, 1)
    }

    /// The whitespace before a new item: the style of the container's items after the first.
    func newLead(_ node: Node, first: Bool) -> [UInt8] {
      if node.items.isEmpty {
        if prefersOneLine(node) { return first ? [] : [0x20] }
        return [0x0A] + lineIndent(at: node.start) + unit
      }
      if first { return Array(text(node.items[0].lead)) }
      if node.items.count > 1 { return Array(text(node.items[node.items.count - 1].lead)) }
      let only = Array(text(node.items[0].lead))
      return only.contains(0x0A) ? only : [0x20]
    }

    func closing(_ node: Node) -> [UInt8] {
      if let last = node.items.last { return Array(text(last.trail)) }
      if prefersOneLine(node) { return [] }
      return [0x0A] + lineIndent(at: node.start)
    }

    /// Writes items: each new item is either an old one (`old` index, rendered over its text) or
    /// written fresh.
    func renderItems(
      _ count: Int, node: Node, open: UInt8, close: UInt8, into out: inout [UInt8],
      oldIndex: (Int) -> Int?, write: (Int, Int?, inout [UInt8], _ indent: [UInt8], _ oneLine: Bool) -> Void
    ) {
      out.append(open)
      let oneLine = prefersOneLine(node)
      let lastOld = node.items.count - 1
      for i in 0..<count {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        let j = oldIndex(i)
        let lead: [UInt8]
        if let j, (i == 0) == (j == 0) {
          lead = Array(text(node.items[j].lead))
        } else {
          lead = newLead(node, first: i == 0)
        }
        out += lead
        write(i, j, &out, indent(afterLead: lead, container: node), oneLine)
        if i < count - 1, let j, j != lastOld { out += text(node.items[j].trail) }
      }
      if count > 0 { out += closing(node) } else if let inner = node.inner { out += text(inner) }
      out.append(close)
    }

    func renderObject(_ new: JSONObject, old: JSONObject, node: Node, into out: inout [UInt8]) {
      var oldIndex: [String: Int] = [:]
      for (j, member) in old.members.enumerated() { oldIndex[member.key] = j }
      let separator = node.items.first?.separator.map { Array(text($0)) } ?? Array(": ".utf8)
      renderItems(
        new.count, node: node, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), into: &out,
        oldIndex: { oldIndex[new.members[$0].key] },
        write: { i, j, out, indent, oneLine in
          let member = new.members[i]
          if let j {
            let item = node.items[j]
            out += text(item.key!)
            out += text(item.separator!)
            render(member.value, old: old.members[j].value, node: item.value, preferOneLine: oneLine, into: &out)
          } else {
            out += Array(JSONSerializer.quote(member.key).utf8)
            out += separator
            out += fresh(member.value, indent: indent, oneLine: oneLine)
          }
        })
    }

    /// Elements are matched to the old ones by an equal prefix and suffix; between them, new and
    /// old elements pair up in order, and the rest are added or removed.
    func renderArray(_ new: [JSONValue], old: [JSONValue], node: Node, into out: inout [UInt8]) {
      var prefix = 0
      while prefix < new.count, prefix < old.count, new[prefix] == old[prefix] { prefix += 1 }
      var suffix = 0
      while suffix < new.count - prefix, suffix < old.count - prefix,
        new[new.count - 1 - suffix] == old[old.count - 1 - suffix]
      {
        suffix += 1
      }
      let paired = min(new.count, old.count) - prefix - suffix
      func oldIndex(_ i: Int) -> Int? {
        if i < prefix + paired { return i }
        if i >= new.count - suffix { return old.count - (new.count - i) }
        return nil
      }
      renderItems(
        new.count, node: node, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), into: &out,
        oldIndex: oldIndex,
        write: { i, j, out, indent, oneLine in
          if let j {
            render(new[i], old: old[j], node: node.items[j].value, preferOneLine: oneLine, into: &out)
          } else {
            out += fresh(new[i], indent: indent, oneLine: oneLine)
          }
        })
    }

    /// A value with no source text: on one line (`{"a": 1, "b": [1, 2]}`), or pretty with its
    /// lines after the first at `indent`, nested levels one `unit` deeper.
    func fresh(_ value: JSONValue, indent: [UInt8], oneLine: Bool) -> [UInt8] {
      if oneLine { return Array(JSONTextEditor.oneLine(value).utf8) }
      var out: [UInt8] = []
      var atLineStart = false
      var spaces = 0
      // JSON strings hold no raw line breaks, so every line break of the pretty text is layout.
      for byte in JSONSerializer.pretty(value).utf8 {
        if byte == 0x0A {
          out.append(0x0A)
          out += indent
          atLineStart = true
          spaces = 0
        } else if atLineStart && byte == 0x20 {
          spaces += 1
          if spaces == 2 { out += unit; spaces = 0 }
        } else {
          atLineStart = false
          out.append(byte)
        }
      }
      return out
    }
  }

  /// An object or array whose members are all scalars.
  static func isFlat(_ value: JSONValue) -> Bool {
    switch value {
    case .object(let object): object.members.allSatisfy { $0.value.isScalar }
    case .array(let items): items.allSatisfy(\.isScalar)
    default: false
    }
  }

  /// `{"a": 1, "b": [1, 2]}`: compact JSON with a space after each `:` and `,`.
  public static func oneLine(_ value: JSONValue) -> String {
    switch value {
    case .array(let items): "[" + items.map(oneLine).joined(separator: ", ") + "]"
    case .object(let object):
      "{" + object.members.map { JSONSerializer.quote($0.key) + ": " + oneLine($0.value) }
        .joined(separator: ", ") + "}"
    default: JSONSerializer.compact(value)
    }
  }
}

/// Where a value is in a JSON text, and for objects and arrays, where each member is and the
/// whitespace around it (what `JSONTextEditor` keeps of the text it writes over).
struct JSONLayoutNode {
  var start: Int
  var end: Int
  /// Members of an object (keys set) or elements of an array; empty for scalars.
  var items: [Item] = []
  /// The whitespace inside an empty object or array.
  var inner: Range<Int>? = nil

  struct Item {
    /// The whitespace before the item (after `{`, `[` or `,`).
    var lead: Range<Int>
    /// An object member's key as written and the text from its end to the value (`: `).
    var key: Range<Int>?
    var separator: Range<Int>?
    var value: JSONLayoutNode
    /// The whitespace after the value (before `,`, `}` or `]`).
    var trail: Range<Int>
  }
}
