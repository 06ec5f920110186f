import Foundation

/// The terminal's clipboard, set by the program with OSC 52 (xterm's "manipulate selection
/// data"): `ESC ] 52 ; c ; BASE64 BEL`. xterm, kitty, iTerm2, WezTerm, foot and Windows Terminal
/// take it, over ssh too (it is only bytes on the terminal); tmux takes it into a paste buffer
/// (and passes it to the terminal outside) with `set-clipboard on`.
public enum Clipboard {
  /// The control string that puts `text` on the clipboard (`c`: the clipboard, not the primary
  /// selection). Base64 has no control characters, so nothing of the text reaches the terminal raw.
  public static func osc52(_ text: String) -> [UInt8] {
    Array("\u{1B}]52;c;".utf8) + Array(Data(text.utf8).base64EncodedString().utf8) + [0x07]
  }
}
