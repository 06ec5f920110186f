/// One subcommand of `reqbench`, declared once (in its own file, registered in `Commands.all`):
/// what dispatch runs, what `reqbench --help` and `reqbench NAME --help` print, what the shell
/// completions offer and what the man page shows are all made from it.
struct Subcommand: Sendable {
  var name: String
  /// One line, for the man page's list of commands.
  var summary: String
  /// Its lines in the "Usage:" block of `reqbench --help`, as written there (continuation
  /// lines indented under the first).
  var synopsis: [String]
  /// What `reqbench --help` says of it beside its name; its lines are indented under the first.
  var description: String
  /// Lines `reqbench --help` prints as they are after the description (`run`'s options).
  var details: String?
  /// What `reqbench NAME --help` prints.
  var usage: String
  /// The words after the command, in order; the last one repeats when `repeats` (TARGET...).
  var arguments: [Argument] = []
  var repeats = false
  /// Every option the command takes (`--help` aside: every command takes it).
  var options: [Option] = []
  /// A usage error prints the usage text after the message.
  var errorsShowUsage = false
  /// The command watches the termination signals itself (`Signals`); the others get the
  /// default actions back before they start.
  var watchesSignals = false
  /// Runs the command on its arguments, already read against `options`; the exit status.
  var run: @Sendable (ParsedArguments) -> Int32

  /// What a positional word after the command is: the completions offer names of that kind.
  enum Argument: Sendable, Equatable {
    /// One of these words (`curl|http|postman`).
    case choice([String])
    /// A workspace file (`*.json`).
    case workspace
    /// A request, folder (`users/`), batch or chain of the workspace on the line.
    case target
    /// Any file (`-` too where the usage says so).
    case file
  }

  func option(named name: String) -> Option? { options.first { $0.name == name } }
}

/// An option of a command: `--name`, and the value it takes, if any.
struct Option: Sendable, Equatable {
  var name: String
  var value: Value

  /// What follows the option: nothing, or a value of a kind the completions know how to offer.
  enum Value: Sendable, Equatable {
    /// Takes no value.
    case flag
    /// Free text (`--search TEXT`, `--var K=V`, `--limit N`): nothing to offer.
    case text
    /// An environment of the workspace on the line (`--env NAME`).
    case environment
    /// Any file (`--junit FILE`, `--out PATH.svg`).
    case file
    /// A folder (`--state-dir DIR`).
    case folder
    /// A workspace file; also the workspace whose names the later words complete (`--into`).
    case workspace
    /// One of these words (`--report json|tap|junit`).
    case choice([String])

    var takesValue: Bool { self != .flag }
  }

  static func flag(_ name: String) -> Option { Option(name: name, value: .flag) }
  static func text(_ name: String) -> Option { Option(name: name, value: .text) }
  static func file(_ name: String) -> Option { Option(name: name, value: .file) }
  static func folder(_ name: String) -> Option { Option(name: name, value: .folder) }
  static func choice(_ name: String, _ words: [String]) -> Option { Option(name: name, value: .choice(words)) }
  static let environment = Option(name: "--env", value: .environment)
  static let variable = Option(name: "--var", value: .text)
  static let stateDirectory = Option(name: "--state-dir", value: .folder)
}
