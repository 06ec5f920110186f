import Formats
import Foundation
import Workspace

/// Every command of `reqbench` with the usage text its `--help` prints: the one source of the
/// man page (`reqbench man`, `ManPage.swift`) and of the shell completions' commands and options
/// (`Completion.swift`), so neither can drift from `--help`. An option is whatever `--name` a
/// usage text shows; it takes a value when the text writes one after it (`--env NAME`,
/// `--report json|tap|junit`).
struct CommandInfo: Sendable {
  /// What a word after the command is: the completions offer names of that kind.
  enum Argument: Sendable, Equatable {
    /// One of these words (`curl|http|postman`).
    case choice([String])
    /// A workspace file (`*.json`).
    case workspace
    /// A request, folder (`users/`), batch or chain of the workspace on the line.
    case target
    /// Any file (`-` too where the text says so).
    case file
  }

  var name: String
  /// One line, for the man page's list.
  var summary: String
  /// What `reqbench NAME --help` prints.
  var usage: String
  /// The words after the command, in order; the last one repeats when `repeats` (TARGET...).
  var arguments: [Argument] = []
  var repeats = false

  /// The options the usage text shows, in order, and whether each takes a value.
  var options: [(name: String, value: OptionValue?)] { CommandInfo.options(in: usage) }

  /// The value an option takes.
  enum OptionValue: Sendable, Equatable {
    /// `NAME`, `FILE`, `DIR`, `N`, `K=V`…: the placeholder as written.
    case placeholder(String)
    case choice([String])
  }

  /// `--name`, and what follows it in the text when that is a value: an upper-case placeholder
  /// (`--env NAME`, `--var K=V`, `--size WxH`) or words joined by `|` (`--report json|tap|junit`).
  static func options(in text: String) -> [(name: String, value: OptionValue?)] {
    var found: [(name: String, value: OptionValue?)] = []
    let scalars = Array(text.unicodeScalars)
    var i = 0
    func isNameScalar(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("0"..."9").contains(s) || s == "-" }
    while i + 2 < scalars.count {
      guard scalars[i] == "-", scalars[i + 1] == "-", ("a"..."z").contains(scalars[i + 2]),
        i == 0 || " [|(\n".unicodeScalars.contains(scalars[i - 1])
      else {
        i += 1
        continue
      }
      var end = i + 2
      while end < scalars.count, isNameScalar(scalars[end]) { end += 1 }
      let name = String(String.UnicodeScalarView(scalars[i..<end]))
      var value: OptionValue?
      if end + 1 < scalars.count, scalars[end] == " " || scalars[end] == "=" {
        var valueEnd = end + 1
        while valueEnd < scalars.count, !" ]\n,;)".unicodeScalars.contains(scalars[valueEnd]) { valueEnd += 1 }
        let word = String(String.UnicodeScalarView(scalars[(end + 1)..<valueEnd]))
        if let first = word.unicodeScalars.first, ("A"..."Z").contains(first) {
          value = .placeholder(word.hasSuffix("...") ? String(word.dropLast(3)) : word)
        } else if word.contains("|"), word.split(separator: "|").allSatisfy({ $0.allSatisfy { ("a"..."z").contains($0) } }) {
          value = .choice(word.split(separator: "|").map(String.init))
        }
      }
      if let index = found.firstIndex(where: { $0.name == name }) {
        if found[index].value == nil { found[index].value = value }
      } else {
        found.append((name, value))
      }
      i = end
    }
    return found
  }

  /// The commands, in the order `reqbench --help` lists them.
  static let all: [CommandInfo] = [
    CommandInfo(
      name: "run", summary: "send requests, batches and chains and report them",
      usage: Arguments.runUsage, arguments: [.workspace, .target], repeats: true),
    CommandInfo(
      name: "history", summary: "list the recorded exchanges", usage: HistoryCommand.usage,
      arguments: [.workspace, .target]),
    CommandInfo(
      name: "secrets", summary: "the secrets file beside a workspace", usage: SecretsCommand.usage,
      arguments: [.choice(["set", "ls", "rm"]), .workspace]),
    CommandInfo(
      name: "cache", summary: "list or clear the response cache", usage: CacheCommand.help,
      arguments: [.choice(["ls", "clear"]), .workspace, .target]),
    CommandInfo(
      name: "cookies", summary: "list, clear, remove, import or export the cookie jar of an environment",
      usage: CookiesCommand.usage, arguments: [.choice(["ls", "clear", "rm", "import", "export"]), .workspace]),
    CommandInfo(
      name: "auth", summary: "get or refresh a request's OAuth 2.0 token, or forget the tokens",
      usage: AuthCommand.usage, arguments: [.workspace, .target]),
    CommandInfo(
      name: "import", summary: "add requests from curl or HTTPie commands, .http files, Postman, Bruno, Insomnia, HAR or OpenAPI files",
      usage: ImportCommand.usage, arguments: [.choice(ImportFormat.allCases.map(\.rawValue)), .file]),
    CommandInfo(
      name: "export", summary: "print requests as curl commands, .http text or a HAR file", usage: ExportCommand.usage,
      arguments: [.choice(ExportCommand.Format.allCases.map(\.rawValue)), .workspace, .target], repeats: true),
    CommandInfo(
      name: "screenshot", summary: "render scripted TUI scenarios to SVG and text",
      usage: ScreenshotCommand.usage, arguments: [.choice(ScreenshotCommand.scenarioNames + ["all"])], repeats: true),
    CommandInfo(name: "keys", summary: "list the TUI's keys", usage: KeysCommand.help),
    CommandInfo(
      name: "completions", summary: "print a shell completion script", usage: CompletionsCommand.usage,
      arguments: [.choice(Completion.Shell.allCases.map(\.rawValue))]),
    CommandInfo(name: "man", summary: "print this manual page (roff)", usage: ManPage.usage),
    CommandInfo(name: "demo-server", summary: "run the embedded demo server", usage: Arguments.demoServerUsage),
  ]

  static func named(_ name: String) -> CommandInfo? { all.first { $0.name == name } }

  /// The options of `reqbench [WORKSPACE]` (the TUI), from the main usage text's first lines.
  static var tuiOptions: [(name: String, value: OptionValue?)] {
    let lines = Arguments.usage.split(separator: "\n").filter {
      $0.hasPrefix("  reqbench [") || $0.hasPrefix("  reqbench --")
    }
    return options(in: lines.joined(separator: "\n"))
  }
}
