import CommandLineSupport
import CNcurses
import Foundation
import TerminalUI
import Workbench

/// The ncurses side of the TUI: starts and restores the terminal, draws a buffer's changes and
/// decodes keys and mouse events. Nothing else touches ncurses.
final class CursesBackend {
  private var previous: ScreenBuffer?
  private var pairs: [Int: Int16] = [:]
  private let colorCount: Int
  private let mouse: Bool
  /// Finds bracketed pastes (and bursts) in the key stream: one `.paste`, never keys.
  private var paste = PasteAssembler()
  let colors: Bool

  /// Starts curses; nil when stdin/stdout is not a terminal curses can use.
  init?(mouse: Bool = true) {
    guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1, rb_curses_start(mouse ? 1 : 0) == 0 else {
      return nil
    }
    CursesBackend.installCrashRestore()
    self.mouse = mouse
    colorCount = Int(rb_curses_colors())
    colors = colorCount >= 8 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
  }

  var size: (width: Int, height: Int) { (Int(rb_curses_cols()), Int(rb_curses_lines())) }

  /// Restores the terminal. Safe to call more than once.
  func stop() { rb_curses_stop() }

  /// Leaves curses mode and runs `/bin/sh -c command sh argument` on the terminal (for
  /// `$EDITOR`): in reqbench's process group, the terminal's foreground one, so the program can
  /// read the terminal; then takes the terminal back (input typed meanwhile and replies to the
  /// program's terminal queries dropped) and repaints everything on the next draw. Returns the
  /// exit status (128 + N when killed by signal N; -1 when the shell could not start).
  func runInTerminal(_ command: String, argument: String) -> Int32 {
    let status = rb_curses_run_in_terminal(command, argument, mouse ? 1 : 0)
    rb_curses_clear()
    previous = nil
    return status
  }

  /// Draws only the cells that changed since the last frame.
  func draw(_ buffer: ScreenBuffer) {
    for run in buffer.changes(since: previous) {
      var x = run.x
      var start = 0
      while start < run.cells.count {
        let style = run.cells[start].style
        var end = start
        var text = ""
        while end < run.cells.count && run.cells[end].style == style {
          let cell = run.cells[end].text
          if cell.utf8.count == 1 {
            text += cell
          } else if !cell.isEmpty {
            var columns = 1
            while end + columns < run.cells.count && run.cells[end + columns].isContinuation { columns += 1 }
            text += terminalText(cell, columns: columns)
          }
          end += 1
        }
        let (attributes, pair) = attributes(for: style)
        rb_curses_draw(Int32(run.y), Int32(x), text, attributes, pair)
        x += end - start
        start = end
      }
    }
    previous = buffer
    rb_curses_refresh()
  }

  private var terminalTexts: [String: String] = [:]

  /// The text to hand ncurses for a cell `columns` wide. ncurses gives every code point its own
  /// `wcwidth` (a zero-width one joins the cell before it), so a cluster the buffer measures as
  /// one emoji of 2 columns — `👍🏽` (a skin tone, itself 2 wide), `👨‍👩‍👧` (three people
  /// joined) — would take 4 or 6 and push the rest of the row right. Such a cluster is drawn as
  /// its first code point (with VS16 when it had one) when that is `columns` wide, a flag as its
  /// two letters, else padded with spaces, else as `?`s: always exactly the columns the buffer
  /// gave it.
  func terminalText(_ cell: String, columns: Int) -> String {
    if let known = terminalTexts[cell] { return known }
    let text = CursesBackend.terminalText(cell, columns: columns, wcwidth: { Int(rb_wcwidth($0.value)) })
    if terminalTexts.count > 4096 { terminalTexts.removeAll() }
    terminalTexts[cell] = text
    return text
  }

  static func terminalText(_ cell: String, columns: Int, wcwidth: (Unicode.Scalar) -> Int) -> String {
    let scalars = Array(cell.unicodeScalars)
    guard let first = scalars.first else { return cell }
    let firstWidth = wcwidth(first)
    // ncurses keeps up to 4 zero-width code points with a character (CCHARW_MAX 5).
    if firstWidth == columns, scalars.count <= 5, scalars.dropFirst().allSatisfy({ wcwidth($0) == 0 }) {
      return cell
    }
    if firstWidth == columns {
      return String(first) + (scalars.contains("\u{FE0F}") ? "\u{FE0F}" : "")
    }
    // A flag (two regional indicators): glibc gives each 1 column, terminals draw each 2 or the
    // pair as 2; its two letters, `FR`, are 2 columns everywhere.
    let regional: ClosedRange<UInt32> = 0x1F1E6...0x1F1FF
    if scalars.allSatisfy({ regional.contains($0.value) }) {
      let letters = scalars.compactMap { Unicode.Scalar($0.value - 0x1F1E6 + 0x41) }.map(Character.init)
      return letters.count == columns ? String(letters) : String(repeating: "?", count: columns)
    }
    if firstWidth >= 1, firstWidth < columns {
      return String(first) + String(repeating: " ", count: columns - firstWidth)
    }
    return String(repeating: "?", count: columns)
  }

  /// Puts `text` on the terminal's clipboard (`Clipboard.osc52`), written after the frame curses
  /// has drawn so it never lands inside one of its sequences.
  func copyToClipboard(_ text: String) {
    rb_curses_refresh()
    let bytes = Clipboard.osc52(text)
    var written = 0
    var attempts = 0
    while written < bytes.count, attempts < 1000 {
      attempts += 1
      let count = bytes[written...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
      if count > 0 {
        written += count
      } else if count < 0, errno != EINTR, errno != EAGAIN {
        return
      }
    }
  }

  /// Forgets the last frame so the next draw repaints everything (after a resize).
  func invalidate() {
    previous = nil
    rb_curses_clear()
  }

  private func attributes(for style: Style) -> (UInt32, Int16) {
    var bits: UInt32 = 0
    var foreground = style.foreground.index
    let background = style.background.index
    if style.bold { bits |= rb_attr_bold }
    if style.dim { bits |= rb_attr_dim }
    if style.italic { bits |= rb_attr_italic }
    if style.underline { bits |= rb_attr_underline }
    if style.reverse { bits |= rb_attr_reverse }
    guard colors, foreground >= 0 || background >= 0 else { return (bits, 0) }
    // Eight-colour terminals: bright colours become their base colour in bold.
    if colorCount < 16, foreground >= 8 {
      foreground -= 8
      bits |= rb_attr_bold
    }
    let key = (foreground + 1) * 32 + (min(background, colorCount < 16 ? 7 : 15) + 1)
    if let pair = pairs[key] { return (bits, pair) }
    let pair = Int16(pairs.count + 1)
    rb_curses_init_pair(pair, Int16(foreground), Int16(background))
    pairs[key] = pair
    return (bits, pair)
  }

  /// Everything typed since the last call, decoded; resizes come as `.resize`, a paste as one
  /// `.paste`.
  func readInput() -> [Msg] {
    var messages: [Msg] = []
    var ch: UInt32 = 0
    while true {
      let kind = rb_curses_read(&ch)
      if kind == 0 { break }
      if kind == 2 {
        if let msg = functionKey(Int32(ch)) { messages.append(msg) }
      } else if let key = character(ch) {
        // Esc followed at once by a key is Alt+key; reqbench has no Alt bindings, so treat both.
        messages.append(.key(key))
      }
    }
    return paste.feed(messages)
  }

  private func character(_ ch: UInt32) -> Key? {
    switch ch {
    case 0x1B: return .escape
    case 0x0D, 0x0A: return .enter
    case 0x09: return .tab
    case 0x7F, 0x08: return .backspace
    case 0x01...0x1A: return .ctrl(Character(Unicode.Scalar(ch + 0x60) ?? "?"))
    default:
      guard let scalar = Unicode.Scalar(ch), ch >= 0x20 else { return nil }
      return .char(Character(scalar))
    }
  }

  private func functionKey(_ code: Int32) -> Msg? {
    switch code {
    case rb_key_resize:
      let (width, height) = size
      invalidate()
      return .resize(width: width, height: height)
    case rb_key_mouse:
      var x: Int32 = 0
      var y: Int32 = 0
      var buttons: UInt = 0
      guard rb_curses_mouse(&x, &y, &buttons) == 1 else { return nil }
      let kind: MouseEvent.Kind
      if buttons & rb_button4_pressed != 0 {
        kind = .wheelUp
      } else if buttons & rb_button5_pressed != 0 {
        kind = .wheelDown
      } else if buttons & (rb_button1_pressed | rb_button1_clicked) != 0 {
        kind = .press
      } else {
        return nil
      }
      return .mouse(MouseEvent(x: Int(x), y: Int(y), kind: kind))
    case rb_key_up: return .key(.up)
    case rb_key_down: return .key(.down)
    case rb_key_left: return .key(.left)
    case rb_key_right: return .key(.right)
    case rb_key_home: return .key(.home)
    case rb_key_end: return .key(.end)
    case rb_key_ppage: return .key(.pageUp)
    case rb_key_npage: return .key(.pageDown)
    case rb_key_btab: return .key(.backTab)
    case rb_key_backspace: return .key(.backspace)
    case rb_key_dc: return .key(.delete)
    case rb_key_enter: return .key(.enter)
    default:
      if code >= rb_key_f1 && code < rb_key_f1 + 12 { return .key(.function(Int(code - rb_key_f1) + 1)) }
      return nil
    }
  }

  /// A crash (a trap or a fatal signal) still gives the terminal back before the process dies.
  private static func installCrashRestore() {
    for sig in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
      signal(sig) { received in
        rb_curses_stop()
        signal(received, SIG_DFL)
        raise(received)
      }
    }
  }
}
