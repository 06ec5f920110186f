import Foundation
import Workspace

/// The workspace file a command names, and where the demo workspace is.
package enum CommandWorkspace {
  /// Loads a workspace file that must exist (the commands that read one: `run`, `export`,
  /// `history`, …), or prints why it cannot be (`FILE:LINE:COLUMN: …`) and returns nil.
  package static func load(_ path: String) -> Workspace? {
    var file = WorkspaceFile(URL(fileURLWithPath: path))
    do {
      let workspace = try file.load()
      if file.isNew {
        Terminal.error(
          "reqbench: \(path): no such workspace; `reqbench \(path)` opens it as a new one, "
            + "`reqbench import curl|httpie|http|postman FILE --into \(path)` creates it with requests")
        return nil
      }
      return workspace
    } catch {
      Terminal.error(error.description)
      return nil
    }
  }

  /// `workspaces/demo.json` in the current folder or beside the binary's package.
  package static func demoPath() -> String? {
    var candidates = ["workspaces/demo.json"]
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
      candidates.append(dir.appendingPathComponent("workspaces/demo.json").path)
      dir = dir.deletingLastPathComponent()
    }
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
  }
}
