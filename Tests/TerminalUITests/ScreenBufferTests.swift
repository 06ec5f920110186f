import TestSupport
import Testing

@testable import TerminalUI

/// The texts of a row's cells, continuation cells included as "".
private func cellTexts(_ buffer: ScreenBuffer, row y: Int) -> [String] {
  (0..<buffer.width).map { buffer[$0, y].text }
}

/// Whether every continuation cell follows a cell with text and every wide character is
/// followed by its continuation cells.
private func widePairsIntact(_ buffer: ScreenBuffer) -> Bool {
  for y in 0..<buffer.height {
    var x = 0
    while x < buffer.width {
      let cell = buffer[x, y]
      if cell.isContinuation { return false }
      let w = max(1, TextWidth.of(cell.text))
      for k in 1..<w where x + k >= buffer.width || !buffer[x + k, y].isContinuation {
        return false
      }
      x += w
    }
  }
  return true
}

@Suite("ScreenBuffer")
struct ScreenBufferTests {
  @Test func newBufferIsBlank() {
    let buffer = ScreenBuffer(width: 3, height: 2)
    #expect(buffer.lines() == ["", ""])
    #expect(buffer[0, 0] == .blank)
    #expect(buffer.bounds == Rect(width: 3, height: 2))
    #expect(ScreenBuffer(width: -1, height: 5).lines() == ["", "", "", "", ""])
  }

  @Test func zeroSizedBuffersIgnoreEveryWrite() {
    for (width, height) in [(0, 3), (3, 0), (0, 0), (1, 1)] {
      var buffer = ScreenBuffer(width: width, height: height)
      buffer.put("日本 text", x: 0, y: 0)
      buffer.box(Rect(width: 5, height: 5), title: "t")
      buffer.fill(Rect(width: 5, height: 5), with: Cell(text: "x"))
      buffer.setStyle(Rect(width: 5, height: 5)) { $0.bold = true }
      buffer[0, 0] = Cell(text: "語")
      #expect(buffer.lines().count == height)
      #expect(buffer.changes(since: nil).count == (width == 0 ? 0 : height))
      #expect(SVGRenderer.render(buffer).hasSuffix("</svg>\n"))
    }
  }

  @Test func subscriptOutOfRangeReadsBlankAndIgnoresWrites() {
    var buffer = ScreenBuffer(width: 2, height: 2)
    buffer[5, 0] = Cell(text: "x")
    buffer[-1, 0] = Cell(text: "x")
    buffer[0, 2] = Cell(text: "x")
    #expect(buffer == ScreenBuffer(width: 2, height: 2))
    #expect(buffer[9, 9] == .blank)
    buffer[x: 1, y: 1] = Cell(text: "z", style: Style.plain.with(\.bold))
    #expect(buffer[1, 1].text == "z")
    #expect(buffer[x: 1, y: 1].style.bold)
  }

  @Test func putWritesAsciiAndReturnsColumns() {
    var buffer = ScreenBuffer(width: 10, height: 2)
    let style = Style(foreground: .green)
    #expect(buffer.put("GET /x", x: 1, y: 1, style: style) == 6)
    #expect(buffer.lines() == ["", " GET /x"])
    #expect(buffer[1, 1].style == style)
    #expect(buffer[0, 1].style == .plain)
    #expect(buffer.put("", x: 0, y: 0) == 0)
  }

  @Test func putClipsAtTheRightEdgeAndAtMaxWidth() {
    var buffer = ScreenBuffer(width: 5, height: 2)
    #expect(buffer.put("abcdefgh", x: 2, y: 0) == 3)
    #expect(buffer.put("abcdefgh", x: 0, y: 1, maxWidth: 2) == 2)
    #expect(buffer.lines() == ["  abc", "ab"])
    #expect(buffer.put("zz", x: 5, y: 0) == 0)
    #expect(buffer.put("zz", x: 0, y: 2) == 0)
    #expect(buffer.put("zz", x: 0, y: 0, maxWidth: 0) == 0)
    #expect(buffer.put("zz", x: 0, y: 0, maxWidth: Int.max) == 2)
  }

  @Test func putClipsAtTheLeftEdge() {
    var buffer = ScreenBuffer(width: 5, height: 1)
    #expect(buffer.put("abcdef", x: -2, y: 0) == 6)
    #expect(buffer.lines() == ["cdef"])
    buffer.clear()
    buffer.put("日本語", x: -1, y: 0)  // 日 straddles the left edge
    #expect(cellTexts(buffer, row: 0) == [" ", "本", "", "語", ""])
  }

  @Test func putDrawsWideCharactersInTwoCells() {
    var buffer = ScreenBuffer(width: 6, height: 1)
    #expect(buffer.put("a日本", x: 0, y: 0) == 5)
    #expect(cellTexts(buffer, row: 0) == ["a", "日", "", "本", "", " "])
    #expect(buffer.lines() == ["a日本"])
    #expect(buffer.put("😀", x: 4, y: 0) == 2)  // over 本's right half
    #expect(cellTexts(buffer, row: 0) == ["a", "日", "", " ", "😀", ""])
  }

  @Test func aWideCharacterStraddlingTheEdgeBecomesASpace() {
    var buffer = ScreenBuffer(width: 4, height: 2)
    buffer.fill(buffer.bounds, with: Cell(text: "."))
    #expect(buffer.put("a日本", x: 0, y: 0) == 4)
    #expect(cellTexts(buffer, row: 0) == ["a", "日", "", " "])
    #expect(buffer.put("日本", x: 0, y: 1, maxWidth: 3) == 3)
    #expect(cellTexts(buffer, row: 1) == ["日", "", " ", "."])
  }

  @Test func combiningMarksStayInTheirCell() {
    var buffer = ScreenBuffer(width: 4, height: 1)
    #expect(buffer.put("e\u{301}x\u{200B}y", x: 0, y: 0) == 3)
    #expect(cellTexts(buffer, row: 0) == ["e\u{301}", "x\u{200B}", "y", " "])
  }

  @Test func aLoneZeroWidthCharacterJoinsThePreviousCellOrIsDropped() {
    var buffer = ScreenBuffer(width: 4, height: 1)
    #expect(buffer.put("\u{301}ab", x: 0, y: 0) == 2)
    #expect(cellTexts(buffer, row: 0) == ["a", "b", " ", " "])
  }

  @Test func controlCharactersAreDrawnEscapedNeverRaw() {
    var buffer = ScreenBuffer(width: 40, height: 3)
    #expect(buffer.put("\u{1b}[2Jhi\u{7}", x: 0, y: 0) == 13)
    #expect(buffer.lines()[0] == #"\x1b[2Jhi\x07"#)
    buffer.put("a\r\nb\u{9b}c\u{0}\u{7f}\u{85}é\u{1b}\u{301}", x: 0, y: 1)
    #expect(buffer.lines()[1] == #"a\r\nb\x9bc\x00\x7f\x85é\x1b"#)
    buffer[0, 2] = Cell(text: "\u{1b}")
    buffer.fill(Rect(x: 1, y: 2, width: 2, height: 1), with: Cell(text: "\u{7}"))
    for y in 0..<buffer.height {
      for x in 0..<buffer.width {
        let raw = buffer[x, y].text.unicodeScalars.contains {
          $0.value < 0x20 || ($0.value >= 0x7F && $0.value <= 0x9F)
        }
        #expect(!raw, "raw control character at \(x),\(y)")
      }
    }
  }

  @Test func tabsBecomeSpacesToTheNextStopFromX() {
    var buffer = ScreenBuffer(width: 20, height: 1)
    #expect(buffer.put("a\tb\tc", x: 3, y: 0) == 9)
    #expect(buffer.lines() == ["   a   b   c"])
  }

  @Test func putReturnsWhatTextWidthMeasures() {
    let samples = [
      "plain", "日本語", "e\u{301}te\u{301}", "a\tb\t\tc", "\u{1b}[0m", "👨‍👩‍👧 ok", "🇩🇪x", "\r\n",
      "x\u{200B}", "mixed ascii 和 テキスト",
    ]
    for sample in samples {
      var buffer = ScreenBuffer(width: 80, height: 1)
      #expect(buffer.put(sample, x: 0, y: 0) == TextWidth.of(sample), "\(sample)")
      #expect(TextWidth.of(buffer.lines()[0]) <= TextWidth.of(sample))
    }
  }

  @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
    var buffer = ScreenBuffer(width: 6, height: 1)
    buffer.put("日本語", x: 0, y: 0)
    buffer.put("x", x: 1, y: 0)  // right half of 日
    #expect(cellTexts(buffer, row: 0) == [" ", "x", "本", "", "語", ""])
    buffer.put("y", x: 2, y: 0)  // left half of 本
    #expect(cellTexts(buffer, row: 0) == [" ", "x", "y", " ", "語", ""])
    buffer.put("日", x: 3, y: 0)  // shifted over 語's left half
    #expect(cellTexts(buffer, row: 0) == [" ", "x", "y", "日", "", " "])
    buffer[4, 0] = Cell(text: "z")
    #expect(cellTexts(buffer, row: 0) == [" ", "x", "y", " ", "z", " "])
    buffer[0, 0] = Cell(text: "語")
    #expect(cellTexts(buffer, row: 0) == ["語", "", "y", " ", "z", " "])
    buffer[5, 0] = Cell(text: "語")  // doesn't fit
    #expect(buffer[5, 0].text == " ")
    buffer.fill(Rect(x: 1, y: 0, width: 1, height: 1), with: Cell(text: "-"))
    #expect(cellTexts(buffer, row: 0) == [" ", "-", "y", " ", "z", " "])
    #expect(widePairsIntact(buffer))
  }

  @Test func randomOverlappingWritesKeepWidePairsIntact() {
    var rng = SplitMix(seed: 7)
    let pieces = ["日本", "ab", "😀", "é", "x", "語x", "\u{1b}", "👍🏽a", "\t"]
    var buffer = ScreenBuffer(width: 12, height: 3)
    for _ in 0..<2000 {
      let text = pieces[Int(rng.next() % UInt64(pieces.count))]
      let x = Int(rng.next() % 16) - 2
      let y = Int(rng.next() % 3)
      switch rng.next() % 4 {
      case 0: buffer[x, y] = Cell(text: text)
      case 1: buffer.fill(Rect(x: x, y: y, width: 2, height: 1), with: Cell(text: "."))
      default: buffer.put(text, x: x, y: y, maxWidth: Int(rng.next() % 5))
      }
      #expect(widePairsIntact(buffer))
    }
  }

  @Test func fillAndSetStyleStayInsideTheRect() {
    var buffer = ScreenBuffer(width: 5, height: 3)
    buffer.fill(Rect(x: 1, y: 1, width: 10, height: 1), with: Cell(text: "#"))
    #expect(buffer.lines() == ["", " ####", ""])
    buffer.setStyle(Rect(x: 0, y: 1, width: 2, height: 5)) { $0.reverse = true }
    #expect(buffer[0, 1].style.reverse && buffer[1, 2].style.reverse)
    #expect(!buffer[2, 1].style.reverse && !buffer[0, 0].style.reverse)
    #expect(buffer[1, 1].text == "#")
    buffer.fill(buffer.bounds, with: Cell(text: "日"))  // not one column: spaces
    #expect(buffer.lines() == ["", "", ""])
  }

  @Test func linesOmitContinuationCellsAndTrimTrailingSpaces() {
    var buffer = ScreenBuffer(width: 8, height: 3)
    buffer.put("日本 ", x: 1, y: 0)
    buffer.put("  x  ", x: 0, y: 2)
    #expect(buffer.lines() == [" 日本", "", "  x"])
    #expect(buffer.text == " 日本\n\n  x")
    #expect(buffer.line(7) == "")
  }

  @Test func boxDrawsABorderWithATitle() {
    var buffer = ScreenBuffer(width: 20, height: 3)
    buffer.box(buffer.bounds, title: "Hi")
    buffer.put("日本 ok", x: 1, y: 1)
    #expect(
      buffer.lines() == [
        "┌ Hi ──────────────┐",
        "│日本 ok           │",
        "└──────────────────┘",
      ])
  }

  @Test func theDocumentationExampleHolds() {
    var screen = ScreenBuffer(width: 12, height: 3)
    screen.box(screen.bounds, title: "Hi")
    screen.put("日本 ok", x: 1, y: 1)
    #expect(screen.text == "┌ Hi ──────┐\n│日本 ok   │\n└──────────┘")
  }

  @Test func boxTitleIsClippedToTheBorder() {
    var buffer = ScreenBuffer(width: 12, height: 4)
    let focused = Style(foreground: .cyan, bold: true)
    buffer.box(
      Rect(x: 1, y: 0, width: 10, height: 4), title: "Response headers", style: focused,
      titleStyle: focused.with(\.reverse), border: .heavy)
    #expect(
      buffer.lines() == [
        " ┏ Respo… ┓",
        " ┃        ┃",
        " ┃        ┃",
        " ┗━━━━━━━━┛",
      ])
    #expect(buffer[3, 0].style.reverse)
    #expect(buffer[2, 0].style.reverse)  // the title's padding too
    #expect(!buffer[1, 0].style.reverse && buffer[1, 0].style.bold)
    buffer.clear()
    buffer.box(Rect(x: 0, y: 0, width: 4, height: 2), title: "Long")
    #expect(buffer.lines() == ["┌──┐", "└──┘", "", ""])
    buffer.box(Rect(x: 6, y: 0, width: 5, height: 2), title: "日本", border: .rounded)
    #expect(buffer.lines() == ["┌──┐  ╭ … ╮", "└──┘  ╰───╯", "", ""])
  }

  @Test func boxClipsToTheBuffer() {
    var buffer = ScreenBuffer(width: 4, height: 2)
    buffer.box(Rect(x: 2, y: 1, width: 5, height: 5), title: "x")
    buffer.box(Rect(x: 0, y: 0, width: 1, height: 1))  // too small: nothing
    #expect(buffer.lines() == ["", "  ┌"])
  }

  @Test func linesHelpersDrawAndClip() {
    var buffer = ScreenBuffer(width: 4, height: 3)
    buffer.horizontalLine(x: 1, y: 0, width: 10)
    buffer.verticalLine(x: 0, y: 1, height: 5, border: .double)
    #expect(buffer.lines() == [" ───", "║", "║"])
  }
}
