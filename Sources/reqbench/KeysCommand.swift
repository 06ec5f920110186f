import CommandLineSupport
import TerminalUI
import Workbench

/// `reqbench keys [--markdown]`: the TUI's key bindings from its one table (`Keymap`), as text
/// or as the README's markdown tables.
enum KeysCommand {
  static let usage = "reqbench keys [--markdown]"
  /// What `keys --help` prints.
  static let help = "usage: \(usage)\n  lists the TUI's keys by where they apply; --markdown prints the README's key tables"

  static let command = Subcommand(
    name: "keys", summary: "list the TUI's keys", synopsis: [usage],
    description: "lists the TUI's keys (--markdown: as the README's tables)", usage: help,
    options: [.flag("--markdown")], run: run)

  static func run(_ arguments: ParsedArguments) -> Int32 {
    guard arguments.positional.isEmpty else {
      Terminal.error("reqbench: \(usage)")
      return ExitStatus.usage
    }
    if arguments.flag("--markdown") {
      Output.standard.data(Keymap.markdown)
    } else {
      for (i, line) in Keymap.helpLines.enumerated() {
        switch line {
        case .heading(let title): Output.standard.line((i == 0 ? "" : "\n") + title)
        case .binding(let keys, let help): Output.standard.line("  " + TextWidth.pad(keys, to: 20) + help)
        case .note(let note): Output.standard.line(String(repeating: " ", count: 22) + note)
        }
      }
    }
    Output.standard.flush()
    return ExitStatus.success
  }
}
