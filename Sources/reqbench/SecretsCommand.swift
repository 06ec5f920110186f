import CommandLineSupport
import Foundation
import RequestEngine
import Workspace

/// `reqbench secrets set|ls|rm WORKSPACE [NAME]`: the secrets file beside a workspace.
/// Values are read from stdin (without echo on a terminal), never from the command line, so they
/// stay out of shell history and process listings.
enum SecretsCommand {
  static let usage = """
    reqbench secrets set WORKSPACE NAME    reads the value from stdin (hidden on a terminal)
    reqbench secrets ls WORKSPACE          lists the names (values masked)
    reqbench secrets rm WORKSPACE NAME
    """

  static let command = Subcommand(
    name: "secrets", summary: "the secrets file beside a workspace", synopsis: ["reqbench secrets set|ls|rm WORKSPACE [NAME]"],
    description: "the secrets file beside the workspace ({{secret.NAME}}); values from stdin", usage: usage,
    arguments: [.choice(["set", "ls", "rm"]), .workspace], run: { run($0.positional) })

  static func run(_ args: [String]) -> Int32 {
    guard args.count >= 2, ["set", "ls", "rm"].contains(args[0]) else {
      Terminal.error("reqbench: secrets needs an action and a workspace:\n\(usage)")
      return ExitStatus.usage
    }
    let action = args[0]
    let workspaceURL = URL(fileURLWithPath: args[1])
    guard FileManager.default.fileExists(atPath: workspaceURL.path) else {
      Terminal.error("reqbench: \(args[1]): no such workspace file")
      return ExitStatus.usage
    }
    guard var secrets = CLI.loadSecrets(forWorkspace: workspaceURL) else { return ExitStatus.usage }
    switch action {
    case "ls":
      guard args.count == 2 else {
        Terminal.error("reqbench: secrets ls takes only a workspace:\n\(usage)")
        return ExitStatus.usage
      }
      if secrets.names.isEmpty {
        Terminal.error("no secrets in \(SecretsFile.url(forWorkspace: workspaceURL).relativePath)")
      }
      for name in secrets.names { Output.standard.line("\(name) = \(Redaction.mask)") }
      return ExitStatus.success
    default:
      guard args.count == 3, !args[2].isEmpty else {
        Terminal.error("reqbench: secrets \(action) needs a workspace and a secret name:\n\(usage)")
        return ExitStatus.usage
      }
      let name = args[2]
      if action == "rm" {
        guard secrets.value(of: name) != nil else {
          Terminal.error("reqbench: no secret named \"\(name)\"")
          return ExitStatus.usage
        }
        secrets.set(name, nil)
      } else {
        guard let value = readSecretValue(prompt: "value of \(name): ") else {
          Terminal.error("reqbench: no value on stdin; type it, or pipe it: printf %s \"$TOKEN\" | reqbench secrets set …")
          return ExitStatus.usage
        }
        secrets.set(name, value)
      }
      do {
        try secrets.save()
      } catch {
        Terminal.error("reqbench: \(error.description)")
        return ExitStatus.failure
      }
      Terminal.error("\(action == "rm" ? "removed" : "saved") secret \(name) in \(SecretsFile.url(forWorkspace: workspaceURL).relativePath) (mode 0600, git-ignored)")
      return ExitStatus.success
    }
  }

  /// One line from stdin (trailing newline dropped); echo is off while a terminal types it.
  private static func readSecretValue(prompt: String) -> String? {
    let tty = isatty(STDIN_FILENO) == 1
    var saved = termios()
    if tty {
      Terminal.prompt(prompt)
      tcgetattr(STDIN_FILENO, &saved)
      var silent = saved
      silent.c_lflag &= ~tcflag_t(ECHO)
      tcsetattr(STDIN_FILENO, TCSANOW, &silent)
    }
    defer {
      if tty {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        Terminal.prompt("\n")
      }
    }
    let data = readToEndOrLine(tty: tty)
    var text = String(decoding: data, as: UTF8.self)
    while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
    return text.isEmpty ? nil : text
  }
}

/// Standard input: a terminal gives one line; a pipe gives everything (nothing when it cannot be
/// read). EINTR is retried both ways.
private func readToEndOrLine(tty: Bool) -> [UInt8] {
  guard tty else { return (try? FileAccess.read(descriptor: STDIN_FILENO, path: "<stdin>")) ?? [] }
  var bytes: [UInt8] = []
  var byte: UInt8 = 0
  while true {
    let count = Glibc.read(STDIN_FILENO, &byte, 1)
    if count < 0 && errno == EINTR { continue }
    guard count == 1, byte != 0x0A else { return bytes }
    bytes.append(byte)
  }
}
