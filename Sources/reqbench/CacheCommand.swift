import Base
import CommandLineSupport
import Foundation
import RequestEngine
import Workspace

/// `reqbench cache ls|clear WORKSPACE [TARGET] [--namespace VALUE] [--state-dir DIR]`: the
/// workspace's response cache, or one namespace of it (a request's `cache.namespace`, resolved).
enum CacheCommand {
  static let usage = "reqbench cache ls|clear WORKSPACE [TARGET] [--namespace VALUE] [--state-dir DIR]"
  /// What `cache --help` prints.
  static let help = "usage: " + usage + "\n"
    + "  ls      lists the cached responses (of TARGET, or of --namespace VALUE)\n"
    + "  clear   removes them"

  static let command = Subcommand(
    name: "cache", summary: "list or clear the response cache", synopsis: [usage],
    description: "lists or clears the workspace's response cache", usage: help,
    arguments: [.choice(["ls", "clear"]), .workspace, .target], options: [.text("--namespace"), .stateDirectory],
    run: run)

  static func run(_ arguments: ParsedArguments) -> Int32 {
    let stateDirectory = arguments.value("--state-dir")
    let namespace = arguments.value("--namespace")
    let positional = arguments.positional
    guard positional.count >= 2, positional.count <= 3, ["ls", "clear"].contains(positional[0]) else {
      Terminal.error("reqbench: \(usage)")
      return ExitStatus.usage
    }
    let workspaceURL = URL(fileURLWithPath: positional[1])
    guard let workspace = CommandWorkspace.load(positional[1]) else { return ExitStatus.usage }
    let target = positional.count == 3 ? positional[2] : nil
    if let target, workspace.request(named: target) == nil {
      Terminal.error(unknownTargetMessage(target, names: workspace.requests.map(\.name), file: positional[1]))
      return ExitStatus.usage
    }
    guard let state = CLI.stateFolder(forWorkspace: workspaceURL, override: stateDirectory) else { return ExitStatus.usage }
    let folder = StateFolder.cache(in: state)
    let cache = ResponseCache(folder: folder, digestKey: CLI.cacheDigestKey(in: state))
    if positional[0] == "clear" {
      let removed = cache.clear(name: target, namespace: namespace)
      Terminal.error("removed \(removed) cached response\(removed == 1 ? "" : "s")")
      return ExitStatus.success
    }
    let now = Date()
    let entries = cache.list().filter {
      (target == nil || $0.name == target) && (namespace == nil || $0.namespaceDigest == cache.digest(namespace))
    }
    if entries.isEmpty {
      Terminal.error("no cached responses in \(folder.relativePath)")
      return ExitStatus.success
    }
    // A table: NAME, STATUS, SIZE, AGE, FRESHNESS, NAMESPACE (when any entry has one), URL.
    let namespaced = entries.contains { $0.namespaceDigest != nil }
    var rows = [["NAME", "STATUS", "SIZE", "AGE", "FRESHNESS"] + (namespaced ? ["NAMESPACE"] : []) + ["URL"]]
    for entry in entries {
      let left = entry.expiresAt.timeIntervalSince(now)
      let freshness =
        left <= 0 ? "expired" : entry.mustRevalidate ? "revalidated on use" : "fresh for " + Formatting.age(left)
      rows.append(
        [entry.name, String(entry.status), Formatting.bytes(entry.bytes),
         Formatting.age(now.timeIntervalSince(entry.createdAt)), freshness]
          + (namespaced ? [entry.namespaceDigest.map { "#" + $0.prefix(8) } ?? "-"] : []) + [entry.url])
    }
    let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      let cells = row.enumerated().map { column, cell in
        column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
      }
      Output.standard.line(cells.joined(separator: "  "))
    }
    return ExitStatus.success
  }
}
