import Foundation
import TestSupport
import Testing

@testable import reqbench

/// The command table (`Commands.all`) is what `reqbench --help`, the three shells' completions
/// and the man page show: every command and each of its declared options is in all of them, and
/// an option no command declares is refused in one style by every command.
@Suite("command table")
struct CommandTableTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The binary's folder first on PATH, as an installed `reqbench` would be.
  var environment: [String: String] {
    get throws {
      ["PATH": try reqbenchBinary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
    }
  }

  @Test func everyCommandIsInTheHelp() throws {
    let help = try runProcess(try reqbenchBinary, ["--help"])
    #expect(help.status == 0)
    let lines = help.stdout.split(separator: "\n").map(String.init)
    #expect(help.stdout == Commands.usage + "\n")
    for command in Commands.all {
      for line in command.synopsis {
        #expect(lines.contains("  " + line), "--help has no synopsis line \"\(line)\"")
      }
      #expect(
        lines.contains { $0.hasPrefix(command.name + " ") && $0.dropFirst(command.name.count).hasPrefix("  ") },
        "--help does not describe \(command.name)")
      let own = try runProcess(try reqbenchBinary, [command.name, "--help"])
      #expect(own.status == 0 && own.stdout == command.usage + "\n", "\(command.name) --help")
      for option in command.options {
        #expect(command.usage.contains(option.name), "\(command.name): \(option.name) is not in its --help")
      }
    }
  }

  /// The user guide's commands page names every command of the table and each of its options, so
  /// the guide and the man page (made from the table) list the same ones.
  @Test func theGuideNamesEveryCommandAndOption() throws {
    let guide = try String(contentsOf: Self.repository.appendingPathComponent("docs/commands.md"), encoding: .utf8)
    for command in Commands.all {
      #expect(guide.contains("reqbench \(command.name)") || guide.contains("`\(command.name)`"), "docs/commands.md does not name \(command.name)")
      for option in command.options where option.name != "--help" {
        #expect(guide.contains(option.name), "docs/commands.md does not name \(command.name) \(option.name)")
      }
    }
  }

  /// What a shell's completion offers for the words of a line, the last being completed.
  func complete(_ shell: String, _ words: [String]) throws -> [String] {
    let quoted = words.map { "'\($0)'" }
    let result: ProcessResult
    switch shell {
    case "bash":
      let script = """
        eval "$(reqbench completions bash)"
        COMP_WORDS=(\(quoted.joined(separator: " ")))
        COMP_CWORD=\(words.count - 1)
        _reqbench
        printf '%s\\n' "${COMPREPLY[@]}"
        """
      result = try runProcess(
        URL(fileURLWithPath: "/bin/bash"), ["--norc", "--noprofile", "-c", script], environment: try environment)
    case "zsh":
      let script = """
        compdef() { : }
        compadd() {
          while [[ $1 == -* ]]; do
            if [[ $1 == -- ]]; then shift; break; fi
            if [[ $1 == -S ]]; then shift; fi
            shift
          done
          print -rl -- "$@"
        }
        _files() { : }
        eval "$(reqbench completions zsh)"
        words=(\(quoted.joined(separator: " ")))
        CURRENT=\(words.count)
        _reqbench
        """
      result = try runProcess(URL(fileURLWithPath: "/usr/bin/zsh"), ["-f", "-c", script], environment: try environment)
    default:
      let line = words.joined(separator: " ")
      let script = "reqbench completions fish | source; complete -C '\(line)'"
      result = try runProcess(URL(fileURLWithPath: "/usr/bin/fish"), ["--no-config", "-c", script], environment: try environment)
    }
    #expect(result.status == 0, "\(shell): \(result.stderr)")
    return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }.sorted()
  }

  @Test(arguments: ["bash", "zsh", "fish"])
  func everyCommandAndItsOptionsAreInTheCompletions(shell: String) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reqbench-table-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let commands = try complete(shell, ["reqbench", ""]).filter { !$0.hasSuffix(".json") && !$0.hasSuffix("/") }
    #expect(Set(commands).isSuperset(of: Commands.all.map(\.name)), "\(shell): \(commands)")
    for command in Commands.all {
      let offered = try complete(shell, ["reqbench", command.name, "--"])
      let declared = Set(command.options.map(\.name) + ["--help"])
      #expect(Set(offered) == declared, "\(shell): reqbench \(command.name) --: \(offered)")
      for option in command.options {
        if case .choice(let words) = option.value {
          #expect(try complete(shell, ["reqbench", command.name, option.name, ""]) == words.sorted())
        }
      }
    }
  }

  @Test func everyCommandIsInTheManPageSynopsis() throws {
    let page = try String(contentsOf: Self.repository.appendingPathComponent("docs/reqbench.1"), encoding: .utf8)
    let start = try #require(page.range(of: ".SH SYNOPSIS\n"))
    let end = try #require(page.range(of: ".SH DESCRIPTION\n"))
    let synopsis = Set(page[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init))
    for command in Commands.all {
      for line in command.synopsis {
        #expect(synopsis.contains(ManPage.text(line)), "the man page's synopsis has no \"\(line)\"")
      }
      #expect(page.contains(".SS \(ManPage.text(command.name))\n"), "the man page has no section on \(command.name)")
    }
  }

  /// Every command, and the TUI, refuses an option it does not take in one style: its name,
  /// the option, where its options are listed; status 2.
  @Test func anUnknownOptionIsOneStyleOfErrorEverywhere() throws {
    for command in Commands.all {
      let result = try runProcess(try reqbenchBinary, [command.name, "--no-such-option"])
      #expect(result.status == 2, "\(command.name)")
      let message = "reqbench: \(command.name): unknown option \"--no-such-option\""
      let hint = command.errorsShowUsage ? "\n" + command.usage + "\n" : "; see `reqbench \(command.name) --help`\n"
      #expect(result.stderr == message + hint, "\(command.name): \(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
    let tui = try runProcess(try reqbenchBinary, ["w.json", "--no-such-option"])
    #expect(tui.status == 2)
    #expect(tui.stderr == "reqbench: unknown option \"--no-such-option\"; see `reqbench --help`\n")
  }

  /// The option reader: values inline or after, flags, `--` and `-` as positional words, the
  /// errors it says.
  @Test func theOptionReader() throws {
    let options: [Option] = [.environment, .variable, .flag("--json")]
    let read = try OptionReader.read(
      ["a", "--env=x", "--var", "k=v", "-", "--json", "--", "--json"], options: options, command: "run")
    #expect(read.positional == ["a", "-", "--json"])
    #expect(read.value("--env") == "x" && read.values("--var") == ["k=v"] && read.flag("--json"))
    #expect(throws: UsageError(message: "--env needs a value")) {
      try OptionReader.read(["--env"], options: options, command: "run")
    }
    #expect(throws: UsageError(message: "--json takes no value, found \"=1\"")) {
      try OptionReader.read(["--json=1"], options: options, command: "run")
    }
    #expect(throws: UsageError(message: "run: unknown option \"--x\"; see `reqbench run --help`")) {
      try OptionReader.read(["--x=1"], options: options, command: "run")
    }
  }
}
