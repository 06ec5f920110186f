import CommandLineSupport
import Foundation
import History
import RequestEngine
import Workspace

/// What `reqbench history` was asked for.
struct HistoryOptions: Equatable {
  var workspace: String
  var target: String?
  var stateDirectory: String?
  var json = false
  var har = false
  /// `--limit N`; nil: 20 for the table and JSON, every entry for HAR.
  var limit: Int?
  var search: String?
  var body = false
  var statuses: [HistoryQuery.Status] = []
  /// `--since`, read against the clock when the arguments were parsed.
  var since: Date?
  var failed = false
}

/// `reqbench history WORKSPACE [TARGET] [--search TEXT [--body]] [--status S] [--since T]
/// [--failed] [--limit N] [--json | --har] [--state-dir DIR]`: the recorded exchanges of a
/// workspace (or of one of its requests), newest first, or a HAR 1.2 file of them.
///
/// ```text
/// TIME      NAME      METHOD  STATUS      SIZE   DURATION  RESULT
/// 14:02:11  get-user  GET     200        412 B     3.1 ms  ok
/// 14:01:58  broken    GET     500         10 B     2.0 ms  status 500 is outside 200-299
/// ```
enum HistoryCommand {
  static let usage = """
    Usage: reqbench history WORKSPACE [TARGET] [--search TEXT [--body]] [--status S]
                            [--since T] [--failed] [--limit N] [--json | --har]
                            [--state-dir DIR]

    Lists the recorded exchanges of WORKSPACE, newest first: all of them, those of the
    request TARGET, or those of every request in the folder TARGET/ (users/). TIME is the
    time of day for today's exchanges, else the date and time. History lives in the
    workspace's state folder (.reqbench/NAME/history.sqlite beside NAME.json) and keeps the
    last 50 exchanges of each request (200 MB at most; the workspace's
    "history": {"perRequest": N, "maxMB": M} changes both).
      --search TEXT    exchanges with every word of TEXT (or a word starting with it) in
                       their name, method, URL, status, error or response headers
      --body           --search looks in the request and response bodies too (anywhere)
      --status S       a code (404), a class (2xx), a range (500-599) or none (no
                       response); several joined by commas (4xx,5xx)
      --since T        finished in the last T (30m, 1h, 2d, 1w) or since a local date
                       (2026-11-30, 2026-11-30T14:00)
      --failed         only exchanges that failed (not cancelled ones)
      --limit N        the newest N exchanges (default 20; with --har every one)
      --json           one JSON object per exchange
      --har            a HAR 1.2 file of the exchanges on stdout (oldest first; bodies as
                       text, or base64 when they are binary; secrets stay masked)
      --state-dir DIR  the state folder to read instead
    """

  static let command = Subcommand(
    name: "history", summary: "list the recorded exchanges",
    synopsis: [
      "reqbench history WORKSPACE [TARGET] [--search TEXT [--body]] [--status S] [--since T]",
      "             [--failed] [--limit N] [--json | --har] [--state-dir DIR]",
    ],
    description: """
      lists, searches and filters the recorded exchanges, newest first, or
      exports them as HAR (reqbench history --help)
      """,
    usage: usage, arguments: [.workspace, .target],
    options: [
      .text("--search"), .flag("--body"), .text("--status"), .text("--since"), .flag("--failed"), .text("--limit"),
      .flag("--json"), .flag("--har"), .stateDirectory,
    ],
    run: run)

  static func run(_ arguments: ParsedArguments) -> Int32 {
    let options: HistoryOptions
    do {
      options = try parse(arguments)
    } catch {
      return CLI.usageError(error.message)
    }

    let workspaceURL = URL(fileURLWithPath: options.workspace)
    guard let workspace = CommandWorkspace.load(options.workspace) else { return ExitStatus.usage }
    // A folder (`users/`) lists every request in it, like `run`.
    let folder = options.target.flatMap { target in
      target.hasSuffix("/") && workspace.request(named: target) == nil
        && workspace.requests.contains { $0.name.hasPrefix(target) } ? target : nil
    }
    if let target = options.target, folder == nil, workspace.request(named: target) == nil {
      Terminal.error(unknownTargetMessage(target, names: workspace.requests.map(\.name), file: options.workspace) + " (leave TARGET out to list the history of every request, removed ones too)")
      return ExitStatus.usage
    }

    guard let state = CLI.stateFolder(forWorkspace: workspaceURL, override: options.stateDirectory) else {
      return ExitStatus.usage
    }
    let store = HistoryStore(stateFolder: state)
    // An old file history is moved into the database first, so the listing is whole.
    store.finishMigration()
    var query = HistoryQuery()
    if let folder {
      query.requests = .folder(folder)
    } else if let target = options.target {
      query.requests = .named(target)
    }
    query.text = options.search ?? ""
    query.includeBodies = options.body
    query.statuses = options.statuses
    query.failedOnly = options.failed
    query.limit = options.limit ?? (options.har ? nil : 20)
    query.since = options.since
    let results: HistoryResults
    do {
      results = try store.entries(matching: query)
    } catch {
      Terminal.error("reqbench: \(error.description)")
      return ExitStatus.failure
    }
    for notice in store.takeNotices() { Terminal.error("reqbench: \(notice)") }
    if results.damaged > 0 {
      Terminal.error(
        "reqbench: \(results.damaged) damaged history entr\(results.damaged == 1 ? "y" : "ies") skipped")
    }
    let entries = results.entries

    if options.har {
      let terminal = Output.standard.isTerminal
      let written = HARExport.write(entries, from: store) { Output.standard.data($0, escaped: terminal) }
      Output.standard.flush()
      for problem in written.problems { Terminal.error("reqbench: \(problem)") }
      return ExitStatus.success
    }
    guard !entries.isEmpty else {
      let subject = options.target.map { "\"\($0)\" in \(options.workspace)" } ?? options.workspace
      let filtered =
        options.search != nil || !options.statuses.isEmpty || options.since != nil || options.failed
      Terminal.error(
        filtered
          ? "reqbench: no history of \(subject) matches"
            // A word only in a body is found with --body.
            + (options.search != nil && !options.body ? " (--body searches the bodies too)" : "")
          : "reqbench: no history yet for \(subject) (kept in \(store.paths.database)); "
            + "`reqbench run` records every exchange")
      return ExitStatus.success
    }

    if options.json {
      for entry in entries {
        Output.standard.json(.object(HistoryFormat.json(entry)))
      }
    } else {
      for line in HistoryFormat.table(entries, now: Date()) { Output.standard.line(line) }
    }
    Output.standard.flush()
    return ExitStatus.success
  }

  static func parse(_ arguments: ParsedArguments) throws(UsageError) -> HistoryOptions {
    var options = HistoryOptions(workspace: "")
    options.json = arguments.flag("--json")
    options.har = arguments.flag("--har")
    options.body = arguments.flag("--body")
    options.failed = arguments.flag("--failed")
    if let text = arguments.value("--search") {
      guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
        throw UsageError(message: "--search needs some text")
      }
      options.search = text
    }
    if let text = arguments.value("--status") {
      do {
        options.statuses = try HistoryQuery.statuses(parsing: text)
      } catch {
        throw UsageError(message: error.message)
      }
    }
    if let text = arguments.value("--since") {
      do {
        options.since = try HistoryQuery.date(parsing: text, now: Date())
      } catch {
        throw UsageError(message: error.message)
      }
    }
    if let directory = arguments.value("--state-dir") {
      guard !directory.isEmpty else { throw UsageError(message: "--state-dir needs a folder") }
      options.stateDirectory = directory
    }
    if let text = arguments.value("--limit") {
      guard let n = Int(text), n >= 1 else {
        throw UsageError(message: "--limit needs a number of 1 or more, got \"\(text)\"")
      }
      options.limit = n
    }
    let positional = arguments.positional
    guard let workspace = positional.first else {
      throw UsageError(
        message: "history needs a workspace file: reqbench history WORKSPACE [TARGET]")
    }
    guard positional.count <= 2 else {
      throw UsageError(
        message: "history takes one target at most, got \(positional.count - 1): "
          + "reqbench history \(workspace) [TARGET]")
    }
    if options.body && options.search == nil {
      throw UsageError(message: "--body widens --search to the bodies; give --search TEXT too")
    }
    if options.json && options.har {
      throw UsageError(message: "--json and --har are two output formats; choose one")
    }
    options.workspace = workspace
    options.target = positional.count == 2 ? positional[1] : nil
    return options
  }

}

/// How `reqbench history` shows entries: a table, or JSON objects.
enum HistoryFormat {
  /// A header line, then one line per entry in the order given.
  static func table(_ entries: [HistoryEntry], now: Date) -> [String] {
    let nameWidth = min(32, max(4, entries.map(\.name.count).max() ?? 0))
    let times = entries.map { time($0.date, now: now) }
    let timeWidth = max(8, times.map(\.count).max() ?? 0)
    var lines = [
      "TIME".padded(timeWidth) + "  " + "NAME".padded(nameWidth) + "  METHOD  STATUS"
        + "SIZE".leftPad(10, " ") + "   DURATION  RESULT"
    ]
    for (entry, time) in zip(entries, times) {
      var name = entry.name
      if name.count > nameWidth { name = String(name.prefix(nameWidth - 1)) + "…" }
      let status = entry.status.map(String.init) ?? "---"
      let line =
        time.padded(timeWidth) + "  " + name.padded(nameWidth) + "  "
        + entry.method.rawValue.padded(6) + "  " + status.padded(6)
        + Format.bytes(entry.bytes).leftPad(10, " ") + "  "
        + Format.milliseconds(entry.durationMs).leftPad(9, " ") + "  " + result(entry)
      lines.append(line)
    }
    return lines
  }

  /// `ok`, `ok (from cache)`, `cancelled` or the error's message.
  static func result(_ entry: HistoryEntry) -> String {
    var text: String
    switch entry.state {
    case .succeeded: text = entry.fromCache ? "ok (from cache)" : "ok"
    case .cancelled: text = "cancelled"
    default: text = entry.error?.message ?? "failed"
    }
    if !entry.bodyKept { text += " (body not kept)" }
    return text
  }

  /// `HH:MM:SS` for a time of `now`'s day, else the date and time (`2026-11-29 14:02:11`), in
  /// local time.
  static func time(_ date: Date, now: Date) -> String {
    let day = localTime(date)
    let today = localTime(now)
    func two(_ n: Int32) -> String { String(n).leftPad(2) }
    let clock = "\(two(day.tm_hour)):\(two(day.tm_min)):\(two(day.tm_sec))"
    if day.tm_year == today.tm_year && day.tm_yday == today.tm_yday { return clock }
    return "\(day.tm_year + 1900)-\(two(day.tm_mon + 1))-\(two(day.tm_mday)) " + clock
  }

  private static func localTime(_ date: Date) -> tm {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    localtime_r(&seconds, &parts)
    return parts
  }

  /// One entry for `--json`, in the shape of `run --json`'s results plus `id`, `date` and
  /// `method`.
  static func json(_ entry: HistoryEntry) -> JSONObject {
    var error: JSONValue = .null
    if let e = entry.error {
      var object = JSONObject([("kind", .string(e.kind.rawValue)), ("message", .string(e.message))])
      if let path = e.path { object["path"] = .string(path) }
      error = .object(object)
    }
    return JSONObject([
      ("id", .string(entry.id)),
      ("date", .string(HARExport.iso8601(entry.date))),
      ("name", .string(entry.name)),
      ("method", .string(entry.method.rawValue)),
      ("url", .string(entry.url)),
      ("state", .string(entry.state.rawValue)),
      ("status", entry.status.map { .number($0) } ?? .null),
      ("bytes", .number(entry.bytes)),
      ("durationMs", .number((entry.durationMs * 10).rounded() / 10)),
      ("fromCache", .bool(entry.fromCache)),
      ("attempts", .number(entry.attempts)),
      ("bodyKept", .bool(entry.bodyKept)),
      ("error", error),
    ])
  }
}

extension String {
  /// The text followed by spaces up to `width` characters.
  fileprivate func padded(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
