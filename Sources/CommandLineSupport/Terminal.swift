import Base
import Foundation
import TerminalUI

/// stderr: messages (escaped by `ControlEscaping`: a request name, a URL or a server's words in
/// them can never drive the terminal), the live progress line, prompts; and TTY detection.
package enum Terminal {
  /// A message of one or more lines; every control character but the newline escaped.
  package static func error(_ text: String) {
    Output.writeAll(STDERR_FILENO, Array((ControlEscaping.visibleLines(text) + "\n").utf8))
  }

  /// The live progress line, drawn over the previous one (`\r`, erase to the end of the line);
  /// its text escaped whole.
  package static func progress(_ line: String) {
    Output.writeAll(STDERR_FILENO, Array(("\r\u{1b}[K" + ControlEscaping.visible(line)).utf8))
  }

  /// Erases the progress line.
  package static func clearProgress() {
    Output.writeAll(STDERR_FILENO, Array("\r\u{1b}[K".utf8))
  }

  /// A prompt (no newline), escaped.
  package static func prompt(_ text: String) {
    Output.writeAll(STDERR_FILENO, Array(ControlEscaping.visibleLines(text).utf8))
  }

  package static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
  package static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }
}

/// Exit statuses, as the user guide lists them (docs/commands.md).
package enum ExitStatus {
  package static let success: Int32 = 0
  package static let failure: Int32 = 1
  package static let usage: Int32 = 2
  package static let interrupted: Int32 = 130
}
