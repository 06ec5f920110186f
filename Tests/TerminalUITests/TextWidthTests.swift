import Base
import Testing

@testable import TerminalUI

@Suite("TextWidth")
struct TextWidthTests {
  @Test func asciiIsOneColumnEach() {
    #expect(TextWidth.of("") == 0)
    #expect(TextWidth.of("hello, world") == 12)
    #expect(TextWidth.of(Character("a")) == 1)
  }

  @Test func cjkHangulAndFullwidthAreTwoColumns() {
    #expect(TextWidth.of("日本語") == 6)
    #expect(TextWidth.of("한국어") == 6)
    #expect(TextWidth.of("ＡＢ") == 4)
    #expect(TextWidth.of("a日b") == 4)
    #expect(TextWidth.of("\u{3000}") == 2)  // ideographic space
  }

  @Test func emojiAreTwoColumns() {
    #expect(TextWidth.of("😀") == 2)
    #expect(TextWidth.of("🚀") == 2)
    #expect(TextWidth.of("👍🏽") == 2)  // skin-tone modifier
    #expect(TextWidth.of("👨‍👩‍👧") == 2)  // ZWJ sequence
    #expect(TextWidth.of("🇩🇪") == 2)  // flag
    #expect(TextWidth.of("❤️") == 2)  // text-default with VS16
    #expect(TextWidth.of("1️⃣") == 2)  // keycap
    #expect(TextWidth.of("🏳️‍🌈") == 2)
    #expect(TextWidth.of("❤") == 1)  // text presentation by default
  }

  @Test func combiningAndZeroWidthCharactersTakeNoColumn() {
    #expect(TextWidth.of("e\u{301}") == 1)  // decomposed é
    #expect(TextWidth.of("a\u{20DD}") == 1)  // enclosing mark
    #expect(TextWidth.of("\u{301}") == 0)
    #expect(TextWidth.of("a\u{200B}b") == 2)  // zero-width space
    #expect(TextWidth.of("\u{FEFF}x") == 1)  // BOM
    #expect(TextWidth.of("\u{1100}\u{1161}\u{11A8}") == 2)  // conjoining jamo: 각
    #expect(TextWidth.of("Z\u{351}\u{36B}\u{343}a") == 2)  // zalgo
  }

  @Test func ambiguousAndBoxDrawingAreOneColumn() {
    #expect(TextWidth.of("─│┌┐└┘") == 6)
    #expect(TextWidth.of("…·°") == 3)
    #expect(TextWidth.of("ÄÖÜß") == 4)
  }

  @Test func controlCharactersCountAsTheirEscapes() {
    #expect(TextWidth.of("\u{1b}") == 4)  // \x1b
    #expect(TextWidth.of("\u{1b}[2J") == 7)
    #expect(TextWidth.of("a\nb") == 4)  // a\nb
    #expect(TextWidth.of("\r\n") == 4)
    #expect(TextWidth.of("\u{7f}\u{9b}") == 8)
    #expect(TextWidth.of(Character("\u{1b}")) == 4)
  }

  @Test func tabsAdvanceToTheNextStop() {
    #expect(TextWidth.of("\t") == 4)
    #expect(TextWidth.of("ab\t") == 4)
    #expect(TextWidth.of("abcd\tx") == 9)
    #expect(TextWidth.of("日\tx") == 5)
  }

  @Test func truncateFitsTheWidthWithAnEllipsis() {
    #expect(TextWidth.truncate("response.json", to: 8) == "respons…")
    #expect(TextWidth.truncate("short", to: 8) == "short")
    #expect(TextWidth.truncate("exact", to: 5) == "exact")
    #expect(TextWidth.truncate("anything", to: 0) == "")
    #expect(TextWidth.truncate("abc", to: 1, ellipsis: "...") == "a")
    #expect(TextWidth.truncate("abcdef", to: 5, ellipsis: "...") == "ab...")
  }

  @Test func truncateNeverSplitsAWideCharacter() {
    #expect(TextWidth.truncate("日本語", to: 4) == "日…")
    #expect(TextWidth.truncate("日本語", to: 5) == "日本…")
    #expect(TextWidth.truncate("日本語", to: 6) == "日本語")
    #expect(TextWidth.truncate("e\u{301}e\u{301}e\u{301}", to: 2) == "e\u{301}…")
    for width in 0...8 {
      #expect(TextWidth.of(TextWidth.truncate("a日b本c語", to: width)) <= width)
    }
  }

  @Test func padGivesExactlyTheWidth() {
    #expect(TextWidth.pad("GET", to: 6) == "GET   ")
    #expect(TextWidth.pad("200", to: 5, alignRight: true) == "  200")
    #expect(TextWidth.pad("日本語", to: 4) == "日… ")
    #expect(TextWidth.pad("日本語", to: 5, alignRight: true) == "日本…")
    #expect(TextWidth.pad("a\tb", to: 7) == "a   b  ")
    #expect(TextWidth.pad("x", to: 0) == "")
    for width in 1...9 {
      #expect(TextWidth.of(TextWidth.pad("ab日本\tc😀", to: width)) == width)
      #expect(TextWidth.of(TextWidth.pad("ab日本\tc😀", to: width, alignRight: true)) == width)
    }
  }

  @Test func wrapBreaksByColumns() {
    #expect(TextWidth.wrap("abcdefgh", width: 3) == ["abc", "def", "gh"])
    #expect(TextWidth.wrap("", width: 3) == [""])
    #expect(TextWidth.wrap("ab\ncd\r\n\nef\n", width: 10) == ["ab", "cd", "", "ef", ""])
    #expect(TextWidth.wrap("abc", width: 0) == ["a", "b", "c"])
  }

  @Test func wrapMovesAWideCharacterThatDoesNotFitToTheNextRow() {
    #expect(TextWidth.wrap("a日本語", width: 4) == ["a日", "本語"])
    #expect(TextWidth.wrap("日本", width: 1) == ["日", "本"])
    #expect(
      TextWidth.wrap("e\u{301}e\u{301}e\u{301}", width: 2) == ["e\u{301}e\u{301}", "e\u{301}"])
    for row in TextWidth.wrap("日本語のテキストと😀絵文字とascii", width: 5) {
      #expect(TextWidth.of(row) <= 5)
    }
  }

  @Test func wrapExpandsTabsPerRow() {
    #expect(TextWidth.wrap("a\tb", width: 10) == ["a   b"])
    #expect(TextWidth.wrap("abc\td", width: 3) == ["abc", " d"])
  }

  @Test func controlEscapingMakesEveryControlVisible() {
    #expect(ControlEscaping.visible("\u{1b}[31mred") == #"\x1b[31mred"#)
    #expect(ControlEscaping.visible("a\tb\r\n") == #"a\tb\r\n"#)
    #expect(ControlEscaping.visible("\u{0}\u{7f}\u{9b}") == #"\x00\x7f\x9b"#)
    #expect(ControlEscaping.visible("\u{2028}") == #"\u2028"#)
    #expect(ControlEscaping.visible("plain 日本 é") == "plain 日本 é")
    for v in UInt32(0)..<0xA0 {
      let scalar = Unicode.Scalar(v)!
      let escaped = ControlEscaping.visible(String(Character(scalar)))
      #expect(escaped.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F })
      #expect(TextWidth.of(String(Character(scalar))) == (v == 9 ? 4 : escaped.count))
    }
  }

  @Test func wordWrapKeepsWordsWhole() {
    #expect(
      TextWidth.wordWrap("make the window larger, or press q to quit", width: 20)
        == ["make the window", "larger, or press q", "to quit"])
    #expect(TextWidth.wordWrap("fits", width: 10) == ["fits"])
    #expect(TextWidth.wordWrap("", width: 10) == [""])
    #expect(TextWidth.wordWrap("a  b", width: 1) == ["a", "b"])
    // A word wider than the row is hard-wrapped; the next word goes on after it.
    #expect(TextWidth.wordWrap("abcdefgh ij", width: 3) == ["abc", "def", "gh", "ij"])
    #expect(TextWidth.wordWrap("日本語 ok", width: 4) == ["日本", "語", "ok"])
  }
}
