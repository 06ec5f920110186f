import Foundation

/// Where a workspace keeps what the app learns while it runs: history, the response cache,
/// partial downloads and chains' captured values. For `path/NAME.json` it is `path/.reqbench/NAME/`, unless the user names
/// another folder with `--state-dir DIR`.
///
/// ```swift
/// let file = URL(fileURLWithPath: "workspaces/demo.json")
/// let state = StateFolder.url(forWorkspace: file, override: nil)
/// // …/workspaces/.reqbench/demo/
/// let history = HistoryStore(folder: StateFolder.history(in: state))
/// ```
/// Nothing is created here: the stores create their folders when they first write.
public struct StateFolder {
  /// The state folder of the workspace file `file`: `override` when given, else
  /// `.reqbench/NAME/` beside the file, where NAME is the file's name without `.json`.
  public static func url(forWorkspace file: URL, override: URL?) -> URL {
    if let override { return override.standardizedFileURL }
    let workspace = file.standardizedFileURL
    var name = workspace.lastPathComponent
    if name.lowercased().hasSuffix(".json"), name.count > 5 { name.removeLast(5) }
    return workspace.deletingLastPathComponent()
      .appendingPathComponent(".reqbench", isDirectory: true)
      .appendingPathComponent(name, isDirectory: true)
  }

  /// The history folder inside a state folder: `STATE/history/`.
  public static func history(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("history", isDirectory: true)
  }

  /// `STATE/cache`: the response cache.
  public static func cache(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("cache", isDirectory: true)
  }

  /// `STATE/chains`: what the last run of each chain captured (`ChainCaptures`).
  public static func chains(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("chains", isDirectory: true)
  }

  /// `STATE/downloads`: partial downloads and their resume state.
  public static func downloads(in stateFolder: URL) -> URL {
    stateFolder.appendingPathComponent("downloads", isDirectory: true)
  }
}
