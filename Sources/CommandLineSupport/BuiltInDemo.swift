import Foundation
import Workspace

/// The demo workspace as part of the program: `reqbench --demo` run where no
/// `workspaces/demo.json` is found (an installed binary, any folder) writes it, with the files
/// its uploads send, to a folder of its own and opens it there.
///
/// The folder is `$XDG_STATE_HOME/reqbench/demo` (`~/.local/state/reqbench/demo`); a demo already
/// there is opened as it is, the user's edits kept. Where that folder cannot be made, a temporary
/// one is, which the caller removes when the TUI ends (`Installed.temporary`).
package enum BuiltInDemo {
  package struct Installed {
    /// The demo's `demo.json`.
    package var workspace: URL
    /// The folder was made in the system's temporary folder for this run only.
    package var temporary: Bool
    /// The files were written now (not found from an earlier run).
    package var written: Bool
  }

  /// `$XDG_STATE_HOME/reqbench/demo`, or `~/.local/state/reqbench/demo`; nil without a home.
  package static func stateFolder(environment: [String: String]) -> URL? {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return URL(fileURLWithPath: state).appendingPathComponent("reqbench/demo", isDirectory: true)
    }
    guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
    return URL(fileURLWithPath: home).appendingPathComponent(".local/state/reqbench/demo", isDirectory: true)
  }

  /// The demo in its state folder (written there unless it is there already), else in a new
  /// temporary folder.
  package static func install(environment: [String: String]) throws(FileError) -> Installed {
    if let folder = stateFolder(environment: environment), let installed = try? install(in: folder) {
      return installed
    }
    let temporary = FileManager.default.temporaryDirectory
      .appendingPathComponent("reqbench-demo-\(getpid())-\(UInt32.random(in: .min ... .max))", isDirectory: true)
    var installed = try install(in: temporary)
    installed.temporary = true
    return installed
  }

  /// Writes `demo.json` and `data/` into `folder` unless its `demo.json` exists.
  package static func install(in folder: URL) throws(FileError) -> Installed {
    let workspace = folder.appendingPathComponent("demo.json")
    if FileManager.default.fileExists(atPath: workspace.path) {
      return Installed(workspace: workspace, temporary: false, written: false)
    }
    let data = folder.appendingPathComponent("data", isDirectory: true)
    do {
      try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    } catch {
      let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
      throw FileError(path: data.path, message: "cannot make the folder: \(reason)", reason: reason)
    }
    try AtomicFile.write(Array(Data(base64Encoded: photoBase64) ?? Data()), to: data.appendingPathComponent("photo.png"))
    try AtomicFile.write(blob(), to: data.appendingPathComponent("blob.bin"))
    // The workspace last: a folder with `demo.json` is a whole demo.
    try AtomicFile.write(Array(workspaceText.utf8), to: workspace)
    return Installed(workspace: workspace, temporary: false, written: true)
  }

  /// `workspaces/data/blob.bin`: 64 KiB of xorshift64* output from a fixed seed (bytes with no
  /// pattern a compressor could shorten, the same on every machine).
  package static func blob() -> [UInt8] {
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    var bytes: [UInt8] = []
    bytes.reserveCapacity(65_536)
    while bytes.count < 65_536 {
      x ^= x >> 12
      x ^= x << 25
      x ^= x >> 27
      let value = x &* 0x2545_F491_4F6C_DD1D
      for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
    return bytes
  }
}
