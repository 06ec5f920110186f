import Foundation
import TestSupport
import Testing

/// `reqbench completions bash|zsh|fish` run by the real shells (bash's completion function with
/// `COMP_WORDS` and its `compgen` file completion, zsh's with `words` / `CURRENT`, fish's
/// `complete -C`), and `reqbench man` against the repository's `docs/reqbench.1` and `man` itself.
@Suite("completions and man page")
struct CompletionsAndManTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// A folder with a workspace (requests in folders, a batch, a chain, two environments), another
  /// workspace, a text file and a sub-folder.
  func folder() throws -> URL {
    let text = """
      {"version": 1, "name": "api", "baseURL": "http://127.0.0.1:1",
       "environments": {"local": {"baseURL": "http://127.0.0.1:2"}, "staging": {"baseURL": "http://127.0.0.1:3"}},
       "requests": [{"name": "users/list", "url": "/users"}, {"name": "users/get", "url": "/users/1"},
                    {"name": "auth/login", "method": "POST", "url": "/login"}, {"name": "health", "url": "/health"}],
       "chains": [{"name": "login-flow", "steps": [{"request": "auth/login"}]}],
       "batches": [{"name": "smoke", "members": ["users/list", "health"]}]}
      """
    let (_, dir) = try workspaceFile(text, named: "ws.json")
    try "{}".write(to: dir.appendingPathComponent("other.json"), atomically: true, encoding: .utf8)
    try "notes".write(to: dir.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
    return dir
  }

  /// The binary's folder first on PATH, as an installed `reqbench` would be.
  var environment: [String: String] {
    get throws {
      ["PATH": try reqbenchBinary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
    }
  }

  /// What bash's completion offers for `line` (the cursor at its end) in `dir`.
  func bash(_ line: String, in dir: URL) throws -> [String] {
    var words = line.split(separator: " ").map { "'\($0)'" }
    if line.hasSuffix(" ") { words.append("''") }
    let script = """
      eval "$(reqbench completions bash)"
      complete -p reqbench >/dev/null || exit 3
      COMP_WORDS=(\(words.joined(separator: " ")))
      COMP_CWORD=\(words.count - 1)
      COMP_LINE='\(line)'
      COMP_POINT=${#COMP_LINE}
      _reqbench
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try runProcess(
      URL(fileURLWithPath: "/bin/bash"), ["--norc", "--noprofile", "-c", script], environment: try environment,
      currentDirectory: dir)
    #expect(result.status == 0, "bash: \(result.stderr)")
    #expect(result.stderr.isEmpty, "bash: \(result.stderr)")
    return result.stdout.split(separator: "\n").map(String.init).sorted()
  }

  @Test func bashCompletesCommandsWorkspacesTargetsEnvironmentsAndOptions() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let first = try bash("reqbench ", in: dir)
    for word in ["run", "history", "import", "export", "completions", "man", "ws.json", "other.json", "sub/"] {
      #expect(first.contains(word), "\(word) not in \(first)")
    }
    #expect(!first.contains("notes.txt"))
    #expect(try bash("reqbench r", in: dir) == ["run"])
    #expect(try bash("reqbench run ", in: dir) == ["other.json", "sub/", "ws.json"])
    #expect(
      try bash("reqbench run ws.json ", in: dir)
        == ["auth/", "auth/login", "health", "login-flow", "smoke", "users/", "users/get", "users/list"])
    #expect(try bash("reqbench run ws.json us", in: dir) == ["users/", "users/get", "users/list"])
    // More targets after the first; the environment of the workspace on the line.
    #expect(try bash("reqbench run ws.json smoke h", in: dir) == ["health"])
    #expect(try bash("reqbench run ws.json --env ", in: dir) == ["local", "staging"])
    #expect(try bash("reqbench run ws.json --env s", in: dir) == ["staging"])
    #expect(try bash("reqbench run ws.json --report ", in: dir) == ["json", "junit", "tap"])
    #expect(try bash("reqbench run ws.json --junit n", in: dir) == ["notes.txt"])
    #expect(try bash("reqbench run ws.json --state-dir ", in: dir) == ["sub/"])
    #expect(try bash("reqbench run ws.json --j", in: dir) == ["--json", "--junit"])
    #expect(try bash("reqbench history ws.json --s", in: dir) == ["--search", "--since", "--state-dir", "--status"])
    #expect(try bash("reqbench export ", in: dir) == ["curl", "har", "http", "httpie"])
    #expect(try bash("reqbench export curl ws.json a", in: dir) == ["auth/", "auth/login"])
    #expect(try bash("reqbench import curl - --into ", in: dir) == ["other.json", "sub/", "ws.json"])
    #expect(try bash("reqbench cache ", in: dir) == ["clear", "ls"])
    #expect(try bash("reqbench completions ", in: dir) == ["bash", "fish", "zsh"])
    // The TUI: a workspace first, then its options.
    #expect(try bash("reqbench ws.json --", in: dir) == ["--demo", "--env", "--help", "--no-cookies", "--state-dir", "--var", "--version"])
    #expect(try bash("reqbench ws.json --env l", in: dir) == ["local"])
    // A file that is no workspace: no names, and nothing printed.
    #expect(try bash("reqbench run notes.txt ", in: dir) == [])
    #expect(try bash("reqbench run missing.json --env ", in: dir) == [])
  }

  /// Every option the completions offer for a command is one its `--help` shows, and the other
  /// way round: both come from the usage text.
  @Test func optionsAreThoseOfTheUsageTexts() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    for command in ["run", "history", "import", "export", "cache", "screenshot", "keys"] {
      let help = try runProcess(try reqbenchBinary, [command, "--help"])
      #expect(help.status == 0)
      let offered = try bash("reqbench \(command) --", in: dir)
      #expect(!offered.isEmpty)
      // `--help` is offered everywhere: every command takes it.
      for option in offered where option != "--help" {
        #expect(help.stdout.contains(option), "\(command): \(option) is not in its --help")
      }
    }
    #expect(try bash("reqbench run x.json --", in: dir).contains("--report"))
  }

  @Test func zshCompletesThroughItsWordsAndCompadd() throws {
    let zsh = URL(fileURLWithPath: "/usr/bin/zsh")
    let dir = try folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    /// The words compadd was given (its options left out) and what `_files` was asked for.
    func complete(_ words: [String]) throws -> [String] {
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
        _files() { print -r -- "FILES $*" }
        eval "$(reqbench completions zsh)"
        words=(\(words.map { "'\($0)'" }.joined(separator: " ")))
        CURRENT=\(words.count)
        _reqbench
        """
      let result = try runProcess(zsh, ["-f", "-c", script], environment: try environment, currentDirectory: dir)
      #expect(result.status == 0, "zsh: \(result.stderr)")
      #expect(result.stderr.isEmpty, "zsh: \(result.stderr)")
      return result.stdout.split(separator: "\n").map(String.init).sorted()
    }
    #expect(try complete(["reqbench", "run", "ws.json", "users/"]) == ["users/", "users/get", "users/list"])
    #expect(try complete(["reqbench", "run", "ws.json", "--env", ""]) == ["local", "staging"])
    #expect(try complete(["reqbench", "run", ""]) == ["FILES -g *.json"])
    #expect(try complete(["reqbench", "run", "ws.json", "--junit", ""]) == ["FILES "])
    #expect(try complete(["reqbench", "comp"]) == ["FILES -g *.json", "completions"])
  }

  @Test func fishCompletesThroughCompleteC() throws {
    let fish = URL(fileURLWithPath: "/usr/bin/fish")
    let dir = try folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    func complete(_ line: String) throws -> [String] {
      let script = "reqbench completions fish | source; complete -C '\(line)'"
      let result = try runProcess(fish, ["--no-config", "-c", script], environment: try environment, currentDirectory: dir)
      #expect(result.status == 0, "fish: \(result.stderr)")
      #expect(result.stderr.isEmpty, "fish: \(result.stderr)")
      // `complete -C` prints a candidate and its description, tab-separated.
      return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }.sorted()
    }
    #expect(try complete("reqbench run ws.json users/") == ["users/", "users/get", "users/list"])
    #expect(try complete("reqbench run ws.json --env ") == ["local", "staging"])
    #expect(try complete("reqbench run ws.json --report j") == ["json", "junit"])
    #expect(try complete("reqbench run ").contains("ws.json"))
    #expect(!(try complete("reqbench run ")).contains("notes.txt"))
    #expect(try complete("reqbench ex") == ["export"])
  }

  @Test func completionsUsageErrors() throws {
    let none = try runProcess(try reqbenchBinary, ["completions"])
    #expect(none.status == 2)
    #expect(none.stderr.contains("completions needs the shell: bash, zsh or fish"))
    let wrong = try runProcess(try reqbenchBinary, ["completions", "tcsh"])
    #expect(wrong.status == 2)
    let help = try runProcess(try reqbenchBinary, ["completions", "--help"])
    #expect(help.status == 0 && help.stdout.contains("eval \"$(reqbench completions bash)\""))
  }

  // MARK: - The man page

  @Test func theRepositoryManPageIsWhatReqbenchManMakes() throws {
    let made = try runProcess(try reqbenchBinary, ["man"])
    #expect(made.status == 0)
    let file = Self.repository.appendingPathComponent("docs/reqbench.1")
    let committed = try String(contentsOf: file, encoding: .utf8)
    #expect(made.stdout == committed, "reqbench.1 is out of step with the usage texts: run `reqbench man > docs/reqbench.1`")
  }

  /// `man ./docs/reqbench.1` reads: groff finds nothing to warn about, and the page shows every
  /// command's `--help` text, line by line.
  @Test func manReadsThePageAndItHoldsEveryUsageText() throws {
    let file = Self.repository.appendingPathComponent("docs/reqbench.1").path
    let groff = try runProcess(URL(fileURLWithPath: "/usr/bin/groff"), ["-man", "-ww", "-z", file])
    #expect(groff.status == 0)
    #expect(groff.stderr.isEmpty, "groff: \(groff.stderr)")
    let man = try runProcess(
      URL(fileURLWithPath: "/usr/bin/man"), ["-l", file],
      environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "200", "MAN_KEEP_FORMATTING": ""])
    #expect(man.status == 0, "man: \(man.stderr)")
    let shown = Set(man.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
    #expect(man.stdout.contains("REQBENCH(1)") && man.stdout.contains("User Commands"))
    for command in ["run", "history", "import", "export", "cache", "completions", "man", "demo-server", "keys", "screenshot"] {
      let help = try runProcess(try reqbenchBinary, [command, "--help"])
      for line in help.stdout.split(separator: "\n") {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { continue }
        let found = shown.contains(text)
        #expect(found, "\(command) --help: \"\(text)\" is not in man ./docs/reqbench.1")
      }
    }
    let main = try runProcess(try reqbenchBinary, ["--help"])
    for line in main.stdout.split(separator: "\n").dropFirst() {
      let text = line.trimmingCharacters(in: .whitespaces)
      guard !text.isEmpty, text != "Usage:" else { continue }
      let found = shown.contains(text)
      #expect(found, "--help: \"\(text)\" is not in man ./docs/reqbench.1")
    }
  }
}
