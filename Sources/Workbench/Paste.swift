import Formats
import Foundation
import Workspace

/// Pasted text, read as one `Msg.paste`, never as keys.
///
/// The terminal is asked for bracketed paste (`ESC[?2004h`, sent by the backend): a paste then
/// comes as `ESC [ 2 0 0 ~`, the text, `ESC [ 2 0 1 ~`. ncurses does not know these sequences as
/// keys (terminfo's `PS`/`PE` are not key capabilities), so they arrive through `get_wch` as
/// Esc and characters; `PasteAssembler` finds them in the key stream and makes one `.paste` of
/// what is between. A terminal without bracketed paste delivers a paste as a burst of characters
/// in one read, which no one types: a read of `burst` or more characters with a space or line
/// break among them is taken as a paste too, so a pasted `curl …` never becomes `c`, `u`, `r`
/// (send)… keys.
///
/// ```swift
/// var paste = PasteAssembler()
/// paste.feed(backend.decodedKeys())   // [.paste("curl http://…")] for a bracketed paste
/// ```
public struct PasteAssembler: Sendable {
  static let start: [Key] = [.escape, .char("["), .char("2"), .char("0"), .char("0"), .char("~")]
  static let end: [Key] = [.escape, .char("["), .char("2"), .char("0"), .char("1"), .char("~")]
  /// The most bytes a paste keeps by default; a longer one is dropped and refused.
  public static let defaultLimit = 1 << 20
  /// The fewest characters in one read taken as an unbracketed paste.
  public static let burst = 16

  /// Inside a paste (after its start marker).
  var pasting = false
  /// The start of the marker awaited (the paste's start, or inside one its end) seen so far.
  var matched: [Key] = []
  /// The paste's text so far (kept out of an enum so appending does not copy it).
  var text = ""
  /// The paste went over `limit`: its text is dropped.
  var tooLong = false

  /// The most bytes of text a paste keeps.
  public let limit: Int

  public init(limit: Int = PasteAssembler.defaultLimit) { self.limit = limit }

  /// The messages of one read: keys, a bracketed paste made one `.paste` (a paste split over
  /// reads comes out with its last part).
  public mutating func feed(_ messages: [Msg]) -> [Msg] {
    var out: [Msg] = []
    for message in messages {
      guard case .key(let key) = message else {
        out.append(message)  // a resize or a click during a paste is not part of it
        continue
      }
      let marker = pasting ? Self.end : Self.start
      if key == marker[matched.count] {
        matched.append(key)
        guard matched.count == marker.count else { continue }
        matched = []
        if pasting {
          out.append(tooLong ? .pasteTooLong(limit: limit) : .paste(text))
          text = ""
          tooLong = false
        }
        pasting.toggle()
        continue
      }
      // Not the marker after all: what was held back is keys (or the paste's text).
      let held = matched + (key == marker[0] ? [] : [key])
      matched = key == marker[0] ? [key] : []
      if !pasting {
        out += held.map { .key($0) }
        continue
      }
      guard !tooLong else { continue }
      for part in held {
        if let piece = Self.text(of: part) { text += piece }
      }
      if text.utf8.count > limit {
        text = ""
        tooLong = true
      }
    }
    // A lone Esc at the end of a read is the Esc key (a marker comes whole in one read).
    if !pasting, matched == [.escape] {
      out.append(.key(.escape))
      matched = []
    }
    return Self.burstAsPaste(out)
  }

  /// What a key inside a paste stands for: its character, a line break, a tab.
  static func text(of key: Key) -> String? {
    switch key {
    case .char(let c): String(c)
    case .enter: "\n"
    case .tab: "\t"
    default: nil
    }
  }

  /// A read that is only `burst` or more characters, with a space or a line break, is a paste
  /// from a terminal without bracketed paste. One line then Enter stays a line then the Enter
  /// key (text typed by a program, then Enter to accept a prompt): `[.paste(line), .key(.enter)]`.
  static func burstAsPaste(_ messages: [Msg]) -> [Msg] {
    guard messages.count >= burst else { return messages }
    var pasted = ""
    for message in messages {
      guard case .key(let key) = message, let piece = text(of: key) else { return messages }
      pasted += piece
    }
    var trailingEnter: [Msg] = []
    if pasted.last == "\n", !pasted.dropLast().contains("\n") {
      pasted.removeLast()
      trailingEnter = [.key(.enter)]
    }
    let spaced = pasted.contains { $0 == " " || $0 == "\n" || $0 == "\t" }
    return spaced ? [.paste(pasted)] + trailingEnter : messages
  }
}

extension LineEdit {
  /// Pasted text into a one-line field: it replaces a selection; line breaks (a `\` before one
  /// included, as a shell joins lines) and tabs become spaces, other control characters go.
  public mutating func paste(_ pasted: String) {
    if selected {
      text = ""
      cursor = 0
      selected = false
    }
    insert(LineEdit.oneLine(pasted))
  }

  static func oneLine(_ text: String) -> String {
    var out = ""
    var chars = Array(text.trimmingCharacters(in: .newlines))[...]
    while let c = chars.popFirst() {
      if c == "\\", let next = chars.first, next.isNewline {
        chars.removeFirst()
        out += " "
      } else if c.isNewline || c == "\t" {
        out += " "
      } else if !c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
        out.append(c)
      }
    }
    return out
  }
}

/// Where a paste goes: into the prompt, field or overlay filter being typed in, as text; else
/// it is read as requests (`RequestText.drafts`, the importers of `reqbench import`) and added
/// (an error says what and where, and nothing is added). A paste never acts as keys.
extension AppState {
  mutating func handlePaste(_ text: String) -> [Command] {
    switch layer {
    case .overlay(let overlay):
      return type(of: overlay).paste(text, &self)
    case .tooSmall, .question, .choice:
      return []  // a question waits for its answer, the type list for its keys: a paste is neither
    case .prompt(var current):
      // `n` with a text of several lines (a curl command with `\`, an .http block): read at once.
      if current.purpose == .newRequest, text.contains(where: \.isNewline) {
        var shown = current.input
        shown.paste(text)
        return submitNewRequest(text: current.input.selected ? text : current.input.text + text, shown: shown)
      }
      current.input.paste(text)
      editPrompt(current)
      return []
    case .field:
      editor.editing?.paste(text)
      return []
    case .pane:
      return addPasted(text)
    }
  }

  /// A paste outside a text field: its requests are added, named as the importer names them.
  mutating func addPasted(_ text: String) -> [Command] {
    var imported: ImportedRequests
    do {
      imported = try RequestText.drafts(from: text, source: "paste", readFile: readNothing).imported
    } catch {
      message = StatusMessage("nothing added: \(error.description)", isError: true)
      return []
    }
    completeURLs(&imported)
    return addImported(imported, naming: nil)
  }
}
