import Base

extension ScreenBuffer {
  /// Draws `text` in at most `width` columns (and no further than the buffer's right edge),
  /// saying so when it is cut: it then ends in `…` (`TextWidth.truncate`). The one way to draw
  /// text that may not fit; `put(_:x:y:style:maxWidth:)` clips silently, for what marks its cut
  /// otherwise (a body line's `›`) or draws a line in pieces. Returns the columns advanced.
  @discardableResult
  public mutating func putTruncated(_ text: String, x: Int, y: Int, style: Style = .plain, width: Int) -> Int {
    let room = min(width, self.width - max(0, x))
    guard room > 0 else { return 0 }
    return put(TextWidth.truncate(text, to: room), x: x, y: y, style: style, maxWidth: room)
  }

  /// Draws `text` on row `y` from column `x`, clipped to `maxWidth` columns (default: to the
  /// buffer's right edge) and to the buffer. Returns the number of columns advanced from `x`
  /// (columns clipped off at the left count; nothing is counted past the clip).
  ///
  /// The rules (`TextWidth` measures by the same ones):
  /// - Each grapheme cluster takes `TextWidth.of` columns; a wide character's second column is
  ///   a continuation cell (`""`).
  /// - A wide character that would straddle the clip edge (or the buffer's left edge) is drawn
  ///   as spaces in the columns it would have had inside.
  /// - A zero-width character that is its own cluster (a ZWSP, a stray combining mark after a
  ///   control character…) joins the cell drawn before it in this call, or is dropped when there
  ///   is none.
  /// - Control characters (C0, DEL, C1, U+2028/2029) are drawn as their `ControlEscaping` text
  ///   (`\x1b`, `\n`…), one column per ASCII character; the raw character is never stored.
  /// - A tab becomes spaces up to the next multiple of `TextWidth.tabWidth` columns counted from
  ///   `x`.
  ///
  /// Printable ASCII takes a fast path: one table look-up and one store per character.
  @discardableResult
  public mutating func put(
    _ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil
  ) -> Int {
    guard y >= 0, y < height, !text.isEmpty else { return 0 }
    var clipEnd = width
    if let maxWidth {
      guard maxWidth > 0 else { return 0 }
      let (end, overflow) = x.addingReportingOverflow(maxWidth)
      if !overflow { clipEnd = min(width, end) }
    }
    guard x < clipEnd else { return 0 }

    let rowStart = y * width
    var col = x
    var lastOwner = -1  // index of the last cell drawn for a character, for zero-width joins
    var wrote = false

    // Fast path: printable ASCII not followed by a non-ASCII byte (which could combine with it).
    let ascii = ScreenBuffer.asciiText
    let utf8 = text.utf8
    var i = utf8.startIndex
    while i != utf8.endIndex && col < clipEnd {
      let byte = utf8[i]
      guard byte >= 0x20 && byte < 0x7F else { break }
      let next = utf8.index(after: i)
      if next != utf8.endIndex && utf8[next] >= 0x80 { break }
      if col >= 0 {
        if !wrote {
          wrote = true
          repairLeft(rowStart: rowStart, x: col)
        }
        lastOwner = rowStart + col
        cells[lastOwner] = Cell(text: ascii[Int(byte)], style: style)
      }
      col += 1
      i = next
    }

    if i != utf8.endIndex && col < clipEnd {
      /// Draws one narrow ASCII cell at `col` (if visible) and advances.
      func narrow(_ cellText: String) {
        if col >= 0 {
          if !wrote {
            wrote = true
            repairLeft(rowStart: rowStart, x: col)
          }
          cells[rowStart + col] = Cell(text: cellText, style: style)
        }
        col += 1
      }

      characters: for character in text[i...] {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { continue }
        if ControlEscaping.isControl(first) {
          lastOwner = -1
          for scalar in scalars {
            if scalar.value == 0x09 {
              for _ in 0..<(TextWidth.tabWidth - (col - x) % TextWidth.tabWidth) {
                guard col < clipEnd else { break characters }
                narrow(" ")
              }
            } else {
              for byte in ControlEscaping.escape(scalar).utf8 {
                guard col < clipEnd else { break characters }
                narrow(ascii[Int(byte & 0x7F)])
              }
            }
          }
          continue
        }
        let w = TextWidth.clusterWidth(character)
        if w == 0 {
          if lastOwner >= 0 { cells[lastOwner].text.append(character) }
          continue
        }
        guard col < clipEnd else { break }
        if col < 0 || col + w > clipEnd {
          // Straddles the left edge or the clip edge: spaces where it would have been.
          let end = min(col + w, clipEnd)
          col = max(col, 0)
          while col < end { narrow(" ") }
          col = end
          lastOwner = -1
          continue
        }
        if !wrote {
          wrote = true
          repairLeft(rowStart: rowStart, x: col)
        }
        lastOwner = rowStart + col
        cells[lastOwner] = Cell(text: String(character), style: style)
        for k in 1..<w {
          cells[lastOwner + k] = Cell(text: "", style: style)
        }
        col += w
      }
    }

    if wrote { repairRight(rowStart: rowStart, from: col) }
    return col - x
  }

  /// One-character strings for the ASCII range, so the fast path never builds a string.
  static let asciiText: [String] = (0..<128).map { String(Unicode.Scalar(UInt8($0))) }
}
