/// The registry of `reqbench`'s commands, in the order `reqbench --help` and the man page list
/// them. A command is one file declaring its `Subcommand` and one line here.
enum Commands {
  static let all: [Subcommand] = [
    RunCommand.command,
    HistoryCommand.command,
    SecretsCommand.command,
    CacheCommand.command,
    CookiesCommand.command,
    AuthCommand.command,
    ImportCommand.command,
    ExportCommand.command,
    ScreenshotCommand.command,
    KeysCommand.command,
    CompletionsCommand.command,
    ManPage.command,
    DemoServerCommand.command,
  ]

  static func named(_ name: String) -> Subcommand? { all.first { $0.name == name } }

  /// The options of `reqbench [WORKSPACE]` (the TUI), as the completions offer them.
  static var tuiOptions: [Option] { TUIOptions.options + [.flag("--help"), .flag("--version")] }

  /// What `reqbench --help` prints: the TUI's lines, then each command's synopsis and
  /// description.
  static var usage: String {
    let column = 15
    func described(_ name: String, _ text: String) -> [String] {
      text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { i, line in
        (i == 0 ? name.padding(toLength: column, withPad: " ", startingAt: 0) : String(repeating: " ", count: column))
          + line
      }
    }
    var lines = ["reqbench: a terminal request workbench", "", "Usage:"]
    lines += TUIOptions.synopsis.map { "  " + $0 }
    for command in all { lines += command.synopsis.map { "  " + $0 } }
    lines += ["  reqbench --help | --version", ""]
    lines += described("reqbench", TUIOptions.description) + [""]
    for command in all {
      lines += described(command.name, command.description)
      if let details = command.details { lines.append(details) }
    }
    lines += described("--demo", TUIOptions.demoDescription)
    lines += [
      "",
      "Exit status: 0 all succeeded, 1 any failed or was cancelled, 2 usage or workspace error,",
      "130 interrupted.",
    ]
    return lines.joined(separator: "\n")
  }
}
