import Base
import TerminalUI
import Testing

/// The one escaping of text for a terminal: C0, DEL, C1, the separators, the
/// bidirectional controls and invalid UTF-8, the same in the TUI's cells and in every command's
/// output.
@Suite struct ControlEscapingTests {
  static let bidi: [UInt32] = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]

  @Test func bidirectionalControlsAreEscaped() {
    #expect(ControlEscaping.visible("\u{202e}evil\u{202c}") == #"\u202eevil\u202c"#)
    #expect(ControlEscaping.visible("\u{2066}iso\u{2069}") == #"\u2066iso\u2069"#)
    for value in Self.bidi {
      let text = String(Character(Unicode.Scalar(value)!))
      let escaped = ControlEscaping.visible(text)
      #expect(escaped.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 }, "U+\(String(value, radix: 16))")
      // The TUI measures it as drawn.
      #expect(TextWidth.of(text) == escaped.count)
    }
    // Neighbours that are not controls stay: Arabic letters, the zero-width joiner, U+202F.
    #expect(ControlEscaping.visible("مرحبا\u{200d}\u{202f}") == "مرحبا\u{200d}\u{202f}")
  }

  @Test func everyC1ControlIsEscaped() {
    for value in UInt32(0x80)...0x9F {
      let escaped = ControlEscaping.visible(String(Character(Unicode.Scalar(value)!)))
      #expect(escaped == "\\x" + String(value, radix: 16))
    }
  }

  /// Messages of several lines keep their newlines; each line is escaped.
  @Test func visibleLinesKeepsNewlinesOnly() {
    #expect(ControlEscaping.visibleLines("a\u{1b}[2J\nb\tc\r") == "a\\x1b[2J\nb\\tc\\r")
  }

  /// Bytes from a server: valid UTF-8 kept, newlines and tabs kept, every control and every byte
  /// that is not UTF-8 escaped.
  @Test func bytesAreEscapedWithInvalidUTF8() {
    let bytes: [UInt8] = Array("ok é\n\t".utf8) + [0x1B, 0x5B, 0x32, 0x4A, 0x9B, 0xFF, 0xC3] + Array("\u{9b}\u{202e}!".utf8)
    #expect(ControlEscaping.visible(bytes: bytes) == "ok é\n\t\\x1b[2J\\x9b\\xff\\xc3\\x9b\\u202e!")
    // A truncated or overlong sequence is bytes, not a character.
    #expect(ControlEscaping.visible(bytes: [0xE6, 0x97]) == "\\xe6\\x97")
    #expect(ControlEscaping.visible(bytes: [0xC0, 0x80]) == "\\xc0\\x80")
  }

  /// JSON output: the controls JSON leaves raw become `\u` escapes, so `--json` on a terminal
  /// is safe, and the JSON means the same.
  @Test func jsonKeepsItsMeaning() {
    let json = "{\"name\":\"n\\u001b]0;T\\u0007\u{9b}31m\u{202e}x\u{7f}\",\n \"b\": 1}"
    #expect(ControlEscaping.jsonEscaped(json) == "{\"name\":\"n\\u001b]0;T\\u0007\\u009b31m\\u202ex\\u007f\",\n \"b\": 1}")
    #expect(ControlEscaping.jsonEscaped("{\"a\":\"é 日本\"}") == "{\"a\":\"é 日本\"}")
  }

  /// The TUI draws the same forms into its cells.
  @Test func theScreenDrawsTheSameEscapes() {
    var buffer = ScreenBuffer(width: 40, height: 1)
    buffer.put("\u{202e}a\u{9b}b\u{1b}c", x: 0, y: 0)
    #expect(buffer.text.hasPrefix(#"\u202ea\x9bb\x1bc"#))
  }
}
