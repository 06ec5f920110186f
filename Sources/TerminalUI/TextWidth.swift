import Base

/// How many terminal columns text takes, and helpers that cut text to a width.
///
/// The rules (the same ones `ScreenBuffer.put` draws by):
/// - A character is one grapheme cluster (a Swift `Character`).
/// - East Asian Wide and Fullwidth characters (CJK, Hangul syllables, fullwidth forms) and
///   emoji with emoji presentation are 2 columns; so are flags, keycaps, emoji with U+FE0F,
///   skin-tone and ZWJ sequences (one glyph on current terminals).
/// - Combining marks (Mn, Me), format characters (Cf: ZWJ, ZWSP, BOM…), variation selectors
///   and Hangul medial/final jamo are 0 columns; another cluster is the sum of its scalars, as a
///   `wcwidth`-based terminal counts it (`"e\u{301}"` is 1; a Devanagari conjunct may be 2).
/// - Everything else, East Asian Ambiguous included, is 1 column.
/// - Control characters count as their `ControlEscaping` form (`\x1b` is 4 columns), except the
///   tab, which advances to the next multiple of `tabWidth` counted from the start of the text.
///
///     TextWidth.of("héllo")   // 5
///     TextWidth.of("日本")     // 4
///     TextWidth.of("👍🏽")     // 2
public enum TextWidth {
  /// Tab stops are every `tabWidth` columns from the start of the text.
  public static let tabWidth = 4

  /// The columns `character` takes; a tab counts as `tabWidth` (as at the start of a line).
  public static func of(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    if ControlEscaping.isControl(first) {
      return scalars.reduce(0) { $0 + ($1.value == 0x09 ? tabWidth : escapedOrCluster($1)) }
    }
    return clusterWidth(character)
  }

  /// The columns `text` takes when drawn from column 0 on one line.
  public static func of(_ text: String) -> Int {
    let utf8 = text.utf8
    var col = 0
    var i = utf8.startIndex
    // ASCII fast path: a printable ASCII byte is one column unless a non-ASCII byte follows
    // (which may be a combining mark joining it).
    while i != utf8.endIndex {
      let byte = utf8[i]
      guard byte < 0x80 else { break }
      let next = utf8.index(after: i)
      if byte >= 0x20 && byte < 0x7F {
        if next != utf8.endIndex && utf8[next] >= 0x80 { break }
        col += 1
      } else if byte == 0x09 {
        col += tabWidth - col % tabWidth
      } else {
        col += ControlEscaping.escapedWidth(UInt32(byte))
      }
      i = next
    }
    guard i != utf8.endIndex else { return col }
    for character in text[i...] {
      col = advance(col, by: character)
    }
    return col
  }

  /// `text` cut to at most `width` columns: unchanged when it fits, otherwise the longest
  /// prefix that fits with `ellipsis` (when the ellipsis itself fits) after it.
  ///
  ///     TextWidth.truncate("response.json", to: 8)   // "respons…"
  ///     TextWidth.truncate("日本語", to: 4)            // "日…" (a wide character is not split)
  public static func truncate(_ text: String, to width: Int, ellipsis: String = "…") -> String {
    guard width > 0 else { return "" }
    let (end, complete) = prefix(of: text, fitting: width)
    if complete { return text }
    let ellipsisWidth = of(ellipsis)
    guard ellipsisWidth <= width else { return String(text[..<end]) }
    let (cut, _) = prefix(of: text, fitting: width - ellipsisWidth)
    return String(text[..<cut]) + ellipsis
  }

  /// `text` truncated (with "…") or padded with spaces to exactly `width` columns; spaces go on
  /// the left when `alignRight`. Tabs in the result are expanded to spaces, so it is exactly
  /// `width` columns wherever it is drawn.
  public static func pad(_ text: String, to width: Int, alignRight: Bool = false) -> String {
    guard width > 0 else { return "" }
    let cut = expandingTabs(truncate(text, to: width))
    let fill = String(repeating: " ", count: max(0, width - of(cut)))
    return alignRight ? fill + cut : cut + fill
  }

  /// `text` wrapped at its spaces into rows of at most `width` columns: each row holds as many
  /// whole words as fit, a word wider than `width` is hard-wrapped (`wrap`), and runs of spaces
  /// where a row breaks are dropped. The screen's messages and notices use it, so an instruction
  /// at a message's end moves to the next row rather than being cut.
  ///
  ///     TextWidth.wordWrap("make the window larger, or press q to quit", width: 20)
  ///     // ["make the window", "larger, or press q", "to quit"]
  public static func wordWrap(_ text: String, width: Int) -> [String] {
    let width = max(1, width)
    var rows: [String] = []
    var row = ""
    var rowWidth = 0
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      let wordWidth = of(String(word))
      if rowWidth > 0 && rowWidth + 1 + wordWidth <= width {
        row += " " + word
        rowWidth += 1 + wordWidth
        continue
      }
      if rowWidth > 0 { rows.append(row) }
      if wordWidth <= width {
        row = String(word)
        rowWidth = wordWidth
      } else {
        var pieces = wrap(String(word), width: width)
        row = pieces.removeLast()
        rowWidth = of(row)
        rows += pieces
      }
    }
    if rowWidth > 0 || rows.isEmpty { rows.append(row) }
    return rows
  }

  /// `text` hard-wrapped into rows of at most `width` columns (a `width` below 1 counts as 1).
  ///
  /// Breaks at `"\n"` and `"\r\n"` too (an empty line stays an empty row; text ending with a
  /// newline ends with an empty row). Words are not kept together: this is the body viewer's
  /// wrap mode. A wide character that doesn't fit moves to the next row; one wider than
  /// `width` (a wide character when `width` is 1, a control character's escape) sits alone on
  /// its row. Tabs become spaces up to the next tab stop of their row, and may be split across
  /// rows. Zero-width characters stay with the character before them.
  public static func wrap(_ text: String, width: Int) -> [String] {
    let width = max(1, width)
    var rows: [String] = []
    var row = ""
    var col = 0
    for character in text {
      if character == "\n" || character == "\r\n" {
        rows.append(row)
        row = ""
        col = 0
        continue
      }
      if character == "\t" {
        for _ in 0..<(tabWidth - col % tabWidth) {
          if col + 1 > width {
            rows.append(row)
            row = ""
            col = 0
          }
          row.append(" ")
          col += 1
        }
        continue
      }
      let w = of(character)
      if w > 0 && col > 0 && col + w > width {
        rows.append(row)
        row = ""
        col = 0
      }
      row.append(character)
      col += w
    }
    rows.append(row)
    return rows
  }

  // MARK: - Internals shared with ScreenBuffer

  /// The column after drawing `character` at `col` (columns counted from the text's start).
  @inline(__always)
  static func advance(_ col: Int, by character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return col }
    guard ControlEscaping.isControl(first) else { return col + clusterWidth(character) }
    var col = col
    for scalar in scalars {
      col += scalar.value == 0x09 ? tabWidth - col % tabWidth : escapedOrCluster(scalar)
    }
    return col
  }

  private static func escapedOrCluster(_ scalar: Unicode.Scalar) -> Int {
    ControlEscaping.isControl(scalar)
      ? ControlEscaping.escapedWidth(scalar.value) : scalarWidth(scalar)
  }

  /// The end of the longest prefix of `text` that fits in `width` columns (zero-width
  /// characters after it included), and whether that prefix is all of `text`.
  static func prefix(of text: String, fitting width: Int) -> (String.Index, Bool) {
    var col = 0
    var index = text.startIndex
    while index != text.endIndex {
      let character = text[index]
      let next = advance(col, by: character)
      if next > width { return (index, false) }
      col = next
      index = text.index(after: index)
    }
    return (index, true)
  }

  /// `text` with each tab replaced by spaces up to the next tab stop.
  static func expandingTabs(_ text: String) -> String {
    guard text.utf8.contains(0x09) else { return text }
    var result = ""
    var col = 0
    for character in text {
      let next = advance(col, by: character)
      if character == "\t" {
        result += String(repeating: " ", count: next - col)
      } else {
        result.append(character)
      }
      col = next
    }
    return result
  }

  /// The width of a grapheme cluster that does not start with a control character.
  static func clusterWidth(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    var iterator = scalars.makeIterator()
    guard let first = iterator.next() else { return 0 }
    guard iterator.next() != nil else { return scalarWidth(first) }
    // A regional-indicator pair is a flag.
    if first.value >= 0x1F1E6 && first.value <= 0x1F1FF { return 2 }
    var sum = 0
    var emojiPresentation = false
    for scalar in scalars {
      if scalar.value == 0xFE0F { emojiPresentation = true }
      sum += scalarWidth(scalar)
    }
    let base = scalarWidth(first)
    if (base == 2 || emojiPresentation) && first.properties.isEmoji { return 2 }
    return sum
  }

  /// The width of one scalar that is not a control character.
  @inline(__always)
  static func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
    let v = scalar.value
    if v < 0x300 { return 1 }
    if v >= 0x1100 {
      if isWide(v) { return 2 }
      if v >= 0x1F000 && v < 0x1FB00 && scalar.properties.isEmojiPresentation { return 2 }
      if (v >= 0x1160 && v <= 0x11FF) || (v >= 0xD7B0 && v <= 0xD7FF) { return 0 }
    }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: return 1
    }
  }

  /// Whether `value` is in the East Asian Wide / Fullwidth table.
  static func isWide(_ value: UInt32) -> Bool {
    let table = WidthTables.wide
    if value < table[0] || value > table[table.count - 1] { return false }
    var low = 0
    var high = table.count / 2 - 1
    while low <= high {
      let mid = (low + high) / 2
      if value < table[2 * mid] {
        high = mid - 1
      } else if value > table[2 * mid + 1] {
        low = mid + 1
      } else {
        return true
      }
    }
    return false
  }
}
