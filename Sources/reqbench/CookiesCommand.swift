import Base
import CommandLineSupport
import Foundation
import RequestEngine
import Sessions
import TerminalUI
import Workspace

/// `reqbench cookies ls|clear|rm|import|export WORKSPACE [--env NAME] [--state-dir DIR]`: the
/// cookie jar of a workspace and environment (`CookieJars`), the one `run` and the TUI use.
enum CookiesCommand {
  static let usage = """
    usage: reqbench cookies ls WORKSPACE [--env NAME] [--state-dir DIR] [--reveal-secrets]
           reqbench cookies clear WORKSPACE [--env NAME] [--state-dir DIR]
           reqbench cookies rm WORKSPACE NAME [--domain HOST] [--env NAME] [--state-dir DIR]
           reqbench cookies import WORKSPACE FILE|- [--domain HOST] [--env NAME] [--state-dir DIR]
           reqbench cookies export WORKSPACE [--header] [--env NAME] [--state-dir DIR]

      ls      the jar's cookies: domain, name, value (masked unless --reveal-secrets), path, expiry
      clear   empties the jar (session cookies too)
      rm      removes the cookies named NAME (of HOST with --domain)
      import  adds the cookies of a curl cookie file (Netscape format, what `curl -c` writes), or
              of `Cookie: a=1; b=2` lines with --domain HOST (sent to HOST, path /, session)
      export  prints the jar as a curl cookie file (`curl -b FILE` reads it), or as one
              `Cookie:` line per domain and path with --header; values as they are
    The jar is the one of the environment NAME, else of the workspace's "environment".
    """

  static let command = Subcommand(
    name: "cookies", summary: "list, clear, remove, import or export the cookie jar of an environment",
    synopsis: ["reqbench cookies ls|clear|rm|import|export WORKSPACE [--env NAME] [--state-dir DIR]"],
    description: "lists, clears, removes, imports or exports the cookie jar of an environment", usage: usage,
    arguments: [.choice(["ls", "clear", "rm", "import", "export"]), .workspace],
    options: [.environment, .stateDirectory, .flag("--reveal-secrets"), .text("--domain"), .flag("--header")],
    run: run)

  static func run(_ arguments: ParsedArguments) -> Int32 {
    let stateDirectory = arguments.value("--state-dir")
    let environment = arguments.value("--env")
    let domain = arguments.value("--domain")
    let reveal = arguments.flag("--reveal-secrets")
    let header = arguments.flag("--header")
    let positional = arguments.positional
    let arity = ["ls": 2, "clear": 2, "export": 2, "rm": 3, "import": 3]
    guard let verb = positional.first, let count = arity[verb], positional.count == count else {
      Terminal.error("reqbench: \(usage)")
      return ExitStatus.usage
    }
    let path = positional[1]
    let workspaceURL = URL(fileURLWithPath: path)
    guard let workspace = CommandWorkspace.load(path) else { return ExitStatus.usage }
    let selected = environment ?? workspace.environment
    guard CLI.knowsEnvironment(selected, in: workspace, file: path) else { return ExitStatus.usage }
    guard let state = CLI.stateFolder(forWorkspace: workspaceURL, override: stateDirectory) else { return ExitStatus.usage }
    let failed = Locked(false)
    let jars = CookieJars(stateFolder: state) { error in
      failed.set(true)
      Terminal.error("reqbench: \(error.description)")
    }
    let file = jars.file(environment: selected)
    let shown = shownPath(file.url)

    switch verb {
    case "clear":
      let count = file.jar.cookies.count
      file.clear()
      Terminal.error("removed \(count) cookie\(count == 1 ? "" : "s") from \(shown)")
    case "rm":
      let name = positional[2]
      let removed = file.remove { cookie in
        cookie.name == name && (domain.map { cookie.host.lowercased() == $0.lowercased() } ?? true)
      }
      guard removed > 0 else {
        Terminal.error("reqbench: no cookie named \(JSONSerializer.quote(name))\(domain.map { " for \($0)" } ?? "") in \(shown)")
        return ExitStatus.failure
      }
      Terminal.error("removed \(removed) cookie\(removed == 1 ? "" : "s")")
    case "import":
      return importCookies(from: positional[2], domain: domain, into: file, failed: failed)
    case "export":
      let cookies = file.jar.cookies.filter { !$0.isExpired(at: Date()) }
      Output.standard.data(header ? headerLines(cookies) : Cookie.file(cookies))
    default:
      list(file.jar.cookies, reveal: reveal, shown: shown)
    }
    return failed.get() ? ExitStatus.failure : ExitStatus.success
  }

  /// The jar's path, relative to the current folder when it is inside it.
  static func shownPath(_ url: URL) -> String {
    let here = FileManager.default.currentDirectoryPath
    let path = url.standardizedFileURL.path
    return path.hasPrefix(here + "/") ? String(path.dropFirst(here.count + 1)) : path
  }

  /// A table: DOMAIN, NAME, VALUE, PATH, EXPIRES, FLAGS; values masked unless revealed.
  private static func list(_ cookies: [Cookie], reveal: Bool, shown: String) {
    let now = Date()
    let live = cookies.filter { !$0.isExpired(at: now) }
    if live.isEmpty {
      Terminal.error("no cookies in \(shown)")
      return
    }
    var rows = [["DOMAIN", "NAME", "VALUE", "PATH", "EXPIRES", "FLAGS"]]
    for cookie in live {
      let value = reveal ? ControlEscaping.visible(cookie.value) : Redaction.mask
      rows.append([
        ControlEscaping.visible(cookie.includeSubdomains ? "." + cookie.host : cookie.host), ControlEscaping.visible(cookie.name),
        value, ControlEscaping.visible(cookie.path), expiry(cookie, now: now), flags(cookie),
      ])
    }
    let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      let cells = row.enumerated().map { column, cell in
        column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
      }
      Output.standard.line(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
    }
  }

  /// `session`, or the expiry in UTC (`2026-12-01 21:05`) and how far off it is (`9999-12-31,
  /// far future` past the year 9999).
  static func expiry(_ cookie: Cookie, now: Date) -> String {
    guard let date = Formatting.cookieExpiryDate(cookie.expires) else { return "session" }
    guard cookie.expires <= Formatting.lastWrittenDate else { return date }
    return date + " (" + Formatting.cookieExpiry(cookie.expires, now: now) + ")"
  }

  static func flags(_ cookie: Cookie) -> String {
    let flags = (cookie.secure ? ["secure"] : []) + (cookie.httpOnly ? ["httponly"] : [])
    return flags.isEmpty ? "-" : flags.joined(separator: ",")
  }

  /// `# 127.0.0.1 /` then `Cookie: a=1; b=2`, for each domain and path.
  static func headerLines(_ cookies: [Cookie]) -> String {
    var groups: [(key: String, cookies: [Cookie])] = []
    for cookie in cookies {
      let key = (cookie.includeSubdomains ? "." : "") + cookie.host + " " + cookie.path
      if let index = groups.firstIndex(where: { $0.key == key }) {
        groups[index].cookies.append(cookie)
      } else {
        groups.append((key, [cookie]))
      }
    }
    return groups.map { group in
      "# \(group.key)\nCookie: " + group.cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ") + "\n"
    }.joined()
  }

  private static func importCookies(from source: String, domain: String?, into file: CookieJarFile, failed: Locked<Bool>)
    -> Int32
  {
    let data: Data?
    if source == "-" {
      data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
      data = FileManager.default.contents(atPath: source)
    }
    guard let data else {
      Terminal.error("reqbench: cannot read \(source); name a curl cookie file or a file of Cookie: lines")
      return ExitStatus.usage
    }
    let text = String(decoding: data, as: UTF8.self)
    var cookies: [Cookie] = []
    var rejected: [Int] = []
    for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" }).enumerated() {
      var line = line
      if line.hasSuffix("\r") { line = line.dropLast() }
      if line.allSatisfy(\.isWhitespace) { continue }
      if let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "cookie" {
        guard let domain else {
          Terminal.error(
            "reqbench: \(source):\(index + 1):1: a Cookie: line says no domain; add --domain HOST (the host it is sent to)")
          return ExitStatus.usage
        }
        for pair in line[line.index(after: colon)...].split(separator: ";") {
          let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
          let name = parts[0].trimmingCharacters(in: .whitespaces)
          guard !name.isEmpty else { continue }
          let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
          cookies.append(Cookie(domain: domain, name: name, value: value))
        }
      } else if let cookie = Cookie(netscapeLine: line) {
        cookies.append(cookie)
      } else if !line.hasPrefix("#") {
        rejected.append(index + 1)
      }
    }
    if let first = rejected.first {
      Terminal.error(
        "reqbench: \(source):\(first):1: not a cookie: a curl cookie file line has 7 fields separated by tabs "
          + "(domain, subdomains, path, secure, expiry, name, value), or write `Cookie: a=1` with --domain HOST"
          + (rejected.count > 1 ? " (\(rejected.count) such lines)" : "") + "; nothing was imported")
      return ExitStatus.usage
    }
    let taken = file.jar.add(cookies)
    file.save()
    Terminal.error("imported \(taken) cookie\(taken == 1 ? "" : "s") into \(shownPath(file.url))")
    return failed.get() ? ExitStatus.failure : ExitStatus.success
  }
}
