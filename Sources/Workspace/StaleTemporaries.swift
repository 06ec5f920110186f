import Foundation
import RequestEngine

/// Temporary files a killed process left behind, swept when a command starts (`run`, chains and
/// batches, the TUI): the `.NAME.tmp-HEX` files of atomic writes (`AtomicFile`, the cache's and
/// the downloads' state) beside the workspace and in its state folder, and spilled response
/// bodies (`reqbench-body-XXXXXX`) named by an older reqbench, which did not unlink them at once.
/// Only files older than `minimumAge` go: a younger one may be another process's write in
/// progress. The walk is bounded (two folder levels, `maximumEntries` names) so a start never
/// waits on a huge folder.
public enum StaleTemporaries {
  public static let minimumAge: Double = 600
  public static let maximumEntries = 20_000

  /// `sweep`, unless a whole sweep of this state folder ended less than `minimumAge` ago
  /// (`STATE/.swept`): a file younger than that is never removed anyway, so sweeping more often
  /// only reads the folders again (a full /tmp is thousands of names, about a millisecond at
  /// every start). Returns nil when it was not due.
  @discardableResult
  public static func sweepIfDue(
    workspaceFolder: URL?, stateFolder: URL, spillDirectory: String?, now: Date = Date()
  ) -> [String]? {
    let stamp = SweepStamp(folder: stateFolder.path)
    guard stamp.isDue(interval: minimumAge, now: now) else { return nil }
    let removed = sweep(workspaceFolder: workspaceFolder, stateFolder: stateFolder, spillDirectory: spillDirectory, now: now)
    stamp.stamp()
    return removed
  }

  /// Removes what is stale in `workspaceFolder` (only `.*.json.tmp-HEX`: the workspace's and its
  /// secrets file's writes), `stateFolder` and its subfolders, two levels deep (`.*.tmp-*`), and
  /// `spillDirectory` (`reqbench-body-*`). Returns the paths removed.
  @discardableResult
  public static func sweep(
    workspaceFolder: URL?, stateFolder: URL, spillDirectory: String?, now: Date = Date()
  ) -> [String] {
    var removed: [String] = []
    var budget = maximumEntries
    /// `prefix`: what every name `matches` accepts starts with, compared on the entry's bytes
    /// before a String is made of its name (a full /tmp has thousands of other names).
    func visit(_ folder: String, depth: Int, prefix: String, matches: (String) -> Bool) {
      guard let directory = opendir(folder) else { return }
      defer { closedir(directory) }
      var subfolders: [String] = []
      let prefixBytes = Array(prefix.utf8)
      while budget > 0, let entry = readdir(directory) {
        budget -= 1
        // The entry's type comes with its name (d_type): only a folder to walk or a name that
        // matches costs an lstat, not every entry of a full /tmp at every start.
        let type = entry.pointee.d_type
        let mayBeFolder = depth > 0 && (type == UInt8(DT_DIR) || type == UInt8(DT_UNKNOWN))
        let named = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String? in
          let bytes = raw.prefix { $0 != 0 }
          guard mayBeFolder || bytes.starts(with: prefixBytes) else { return nil }
          return String(decoding: bytes, as: UTF8.self)
        }
        guard let name = named, name != ".", name != ".." else { continue }
        guard mayBeFolder || matches(name) else { continue }
        let path = folder + "/" + name
        var info = stat()
        guard lstat(path, &info) == 0 else { continue }
        if info.st_mode & S_IFMT == S_IFDIR {
          if depth > 0 { subfolders.append(path) }
        } else if info.st_mode & S_IFMT == S_IFREG, matches(name),
          now.timeIntervalSince1970 - Double(info.st_mtim.tv_sec) > minimumAge, unlink(path) == 0
        {
          removed.append(path)
        }
      }
      for subfolder in subfolders { visit(subfolder, depth: depth - 1, prefix: prefix, matches: matches) }
    }
    if let workspaceFolder {
      visit(workspaceFolder.path, depth: 0, prefix: ".") { isAtomicTemporary($0) && $0.contains(".json.tmp-") }
    }
    visit(stateFolder.path, depth: 2, prefix: ".", matches: isAtomicTemporary)
    if let spillDirectory {
      visit(spillDirectory, depth: 0, prefix: "reqbench-body-") {
        $0.hasPrefix("reqbench-body-") && $0.count == "reqbench-body-XXXXXX".count
      }
    }
    return removed
  }

  /// `.NAME.tmp-…`: what `AtomicFile` (and the cache's and downloads' writers) write before the
  /// rename.
  static func isAtomicTemporary(_ name: String) -> Bool {
    name.hasPrefix(".") && name.contains(".tmp-")
  }
}
