import CommandLineSupport
import Foundation
import RequestEngine

/// Dispatch: the first word names a command of `Commands.all` (its `--help`, or its arguments
/// read against its options and the command run), the TUI's options or a workspace open the
/// TUI, `--help` and `--version` answer here.
enum CLI {
  static func run(_ args: [String]) -> Int32 {
    guard let first = args.first else { return TUILaunch.run(TUIOptions()) }
    switch first {
    case "-h", "--help", "help":
      Signals.restoreDefaults()
      Output.standard.line(Commands.usage)
      return ExitStatus.success
    case "--version", "-V":
      Signals.restoreDefaults()
      Output.standard.line("reqbench \(reqbenchVersion)")
      return ExitStatus.success
    default: break
    }
    guard let command = Commands.named(first) else {
      guard first.hasPrefix("-") || first.hasSuffix(".json") else {
        return usageError(
          "unknown command \"\(first)\"; try `reqbench WORKSPACE.json`, `reqbench run WORKSPACE TARGET` or `reqbench --help`")
      }
      do {
        return TUILaunch.run(try TUIOptions.parse(args))
      } catch {
        return usageError(error.message)
      }
    }
    let rest = Array(args.dropFirst())
    if OptionReader.asksForHelp(rest) {
      Signals.restoreDefaults()
      Output.standard.line(command.usage)
      return ExitStatus.success
    }
    let arguments: ParsedArguments
    do {
      arguments = try OptionReader.read(
        rest, options: command.options, command: command.name, usageFollows: command.errorsShowUsage)
    } catch {
      return usageError(error.message + (command.errorsShowUsage ? "\n" + command.usage : ""))
    }
    if !command.watchesSignals { Signals.restoreDefaults() }
    return command.run(arguments)
  }

  /// Says what is wrong with the command line (`reqbench: …`); the usage status.
  static func usageError(_ message: String) -> Int32 {
    Signals.restoreDefaults()
    Terminal.error("reqbench: \(message)")
    return ExitStatus.usage
  }
}
