import CommandLineSupport
import RequestEngine

/// `reqbench man`: the manual page `docs/reqbench.1` (roff, `man ./docs/reqbench.1`), made from the same
/// usage texts `--help` prints (`Commands.usage` and each command's `Subcommand.usage`),
/// so it cannot say something else. The repository's `docs/reqbench.1` is this output; a test keeps
/// the two in step (`reqbench man > docs/reqbench.1` after changing a usage text).
enum ManPage {
  static let usage = """
    usage: reqbench man
      prints the manual page (roff) made from the usage texts; reqbench man > docs/reqbench.1,
      then man ./docs/reqbench.1
    """

  static let command = Subcommand(
    name: "man", summary: "print this manual page (roff)", synopsis: ["reqbench man"],
    description: "prints the manual page made from these usage texts (reqbench.1)", usage: usage, run: run)

  static func run(_ arguments: ParsedArguments) -> Int32 {
    guard arguments.positional.isEmpty else {
      Terminal.error("reqbench: man takes no arguments\n\(usage)")
      return ExitStatus.usage
    }
    Output.standard.data(page)
    Output.standard.flush()
    return ExitStatus.success
  }

  static var page: String {
    // The main usage text: its title line, its "Usage:" block, then the rest.
    let lines = Commands.usage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let usageStart = (lines.firstIndex { $0 == "Usage:" } ?? 0) + 1
    let usageEnd = lines[usageStart...].firstIndex { $0.isEmpty } ?? lines.count
    let synopsis = lines[usageStart..<usageEnd].map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : $0 }
    let description = Array(lines[usageEnd...]).drop { $0.isEmpty }

    var out = ".\\\" Made by `reqbench man` from the usage texts; do not edit (run `reqbench man > docs/reqbench.1`).\n"
    out += ".TH REQBENCH 1 \"\" \"reqbench \(reqbenchVersion)\" \"User Commands\"\n"
    out += ".SH NAME\nreqbench \\- a terminal request workbench\n"
    out += ".SH SYNOPSIS\n" + preformatted(synopsis)
    out += ".SH DESCRIPTION\n" + preformatted(Array(description))
    out += ".SH COMMANDS\n"
    for command in Commands.all {
      out += ".SS \(text(command.name))\n\(text(command.summary)).\n.PP\n"
      out += preformatted(command.usage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
    out += ".SH FILES\n"
    out += preformatted([
      "NAME.json                  the workspace",
      "NAME.secrets.json          its secrets (0600), beside it",
      ".reqbench/NAME/            its state folder: history.sqlite, the cache, downloads",
    ])
    out += ".SH SEE ALSO\n.BR curl (1),\n.BR jq (1);\nthe README of the reqbench repository.\n"
    return out
  }

  /// Lines shown as they are (`.nf`), in the constant-width font, blank lines kept.
  private static func preformatted(_ lines: [String]) -> String {
    var trimmed = lines
    while trimmed.last?.isEmpty == true { trimmed.removeLast() }
    return ".PP\n.nf\n" + trimmed.map { $0.isEmpty ? ".sp" : text($0) }.joined(separator: "\n") + "\n.fi\n"
  }

  /// Text roff shows as written: backslashes and hyphens escaped, characters beyond ASCII as
  /// `\[u2022]` (the page is ASCII, whatever the reader's locale), a line starting with `.` or
  /// `'` (a request to roff) guarded.
  static func text(_ line: String) -> String {
    var out = ""
    for scalar in line.unicodeScalars {
      switch scalar {
      case "\\": out += "\\e"
      case "-": out += "\\-"
      case _ where scalar.value > 0x7E || scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
      default: out.unicodeScalars.append(scalar)
      }
    }
    if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
    return out
  }
}
