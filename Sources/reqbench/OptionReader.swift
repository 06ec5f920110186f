/// A command line that cannot be understood: what is wrong and what to type instead.
struct UsageError: Error, Equatable, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// A command's arguments read against its declared options (`OptionReader`): the options given,
/// in order, and the positional words.
struct ParsedArguments: Sendable {
  /// The arguments as typed.
  var raw: [String]
  var positional: [String] = []
  /// Each option given, in order, with its value (nil for a flag).
  var given: [(name: String, value: String?)] = []

  /// Whether the flag (or any option) `name` was given.
  func flag(_ name: String) -> Bool { given.contains { $0.name == name } }

  /// The value of the last `name` given.
  func value(_ name: String) -> String? { given.last { $0.name == name }?.value }

  /// The values of every `name` given, in order (a repeatable option: `--var`).
  func values(_ name: String) -> [String] { given.compactMap { $0.name == name ? $0.value : nil } }
}

/// The one reader of command lines: options (`--name value`, `--name=value`, flags) anywhere,
/// the rest positional (`-` too); `--` ends the options. An option the command does not declare
/// is an error naming where its options are listed (unless its usage text follows the message:
/// `usageFollows`).
enum OptionReader {
  static func read(
    _ args: [String], options: [Option], command: String?, usageFollows: Bool = false
  ) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments(raw: args)
    var rest = args[...]
    while let arg = rest.popFirst() {
      if arg == "--" {
        parsed.positional += rest
        break
      }
      guard arg.hasPrefix("-"), arg != "-" else {
        parsed.positional.append(arg)
        continue
      }
      var name = arg
      var inline: String?
      if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
        name = String(arg[..<eq])
        inline = String(arg[arg.index(after: eq)...])
      }
      guard let option = options.first(where: { $0.name == name }) else {
        throw UsageError(message: unknownOption(name, command: command, usageFollows: usageFollows))
      }
      guard option.value.takesValue else {
        if let inline { throw UsageError(message: "\(name) takes no value, found \"=\(inline)\"") }
        parsed.given.append((name, nil))
        continue
      }
      guard let value = inline ?? rest.popFirst() else { throw UsageError(message: "\(name) needs a value") }
      parsed.given.append((name, value))
    }
    return parsed
  }

  /// `run: unknown option "--bogus"; see `reqbench run --help``.
  static func unknownOption(_ name: String, command: String?, usageFollows: Bool) -> String {
    guard let command else { return "unknown option \"\(name)\"; see `reqbench --help`" }
    return "\(command): unknown option \"\(name)\"" + (usageFollows ? "" : "; see `reqbench \(command) --help`")
  }

  /// `KEY=VALUE` of `--var`.
  static func variable(_ pair: String) throws(UsageError) -> (String, String) {
    guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
      throw UsageError(message: "--var needs KEY=VALUE, got \"\(pair)\"")
    }
    return (String(pair[..<eq]), String(pair[pair.index(after: eq)...]))
  }

  /// The format a command's first word names (`export curl`), or the error: `missing` when
  /// there is no word, `CMD: unknown format "yaml"; use curl, http…` when it names none.
  static func choice<Format: RawRepresentable & CaseIterable>(
    _ type: Format.Type, _ word: String?, command: String, missing: String
  ) throws(UsageError) -> Format where Format.RawValue == String {
    guard let word else { throw UsageError(message: missing) }
    guard let format = Format(rawValue: word) else {
      throw UsageError(
        message: "\(command): unknown format \"\(word)\"; use " + Format.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return format
  }

  /// Whether `--help` or `-h` comes before any `--`.
  static func asksForHelp(_ args: [String]) -> Bool {
    args.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
  }
}
