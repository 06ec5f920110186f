// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "reqbench",
  products: [
    .library(name: "RequestEngine", targets: ["RequestEngine"]),
    .library(name: "Workspace", targets: ["Workspace"]),
    .library(name: "TerminalUI", targets: ["TerminalUI"]),
    .executable(name: "reqbench", targets: ["reqbench"]),
  ],
  targets: [
    // C shim over libcurl: one typed wrapper per variadic call.
    .target(
      name: "CCurl",
      linkerSettings: [.linkedLibrary("curl")]
    ),
    // The request engine: request model, URL and body building, the Agent (curl multi on one
    // engine thread), events, validators, retry. No UI.
    .target(name: "RequestEngine", dependencies: ["CCurl", "CSystem", "JSON", "Digest"]),
    // C shim over the Linux calls Swift's Glibc module leaves out (sync_file_range).
    .target(name: "CSystem"),
    // JSON: the value (keys in order, numbers as written), the parser with every value's
    // line:column, the serializer, the format-preserving text editor, paths. One for every target.
    .target(name: "JSON"),
    // SHA-256, shared by the engine (cache keys) and the fixture server (body digests).
    .target(name: "Digest"),
    // The workspace file: parsing with positions, the model, templating, atomic saves, history,
    // import / export (TerminalUI for its one XML escaper, in the JUnit report).
    .target(name: "Workspace", dependencies: ["RequestEngine", "Digest", "CJQ", "CSQLite", "CYAML", "TerminalUI"]),
    // C shim over SQLite (history): the calls Swift cannot make (a macro, a variadic function).
    .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
    // C shim over libyaml (OpenAPI import): its events flattened, so Swift reads no C union.
    .target(name: "CYAML", linkerSettings: [.linkedLibrary("yaml")]),
    // The embedded demo server, also the project's fixture server for byte-level faults.
    // (RequestEngine for the project's one monotonic clock.)
    .target(name: "DemoServer", dependencies: ["Digest", "JSON", "RequestEngine"]),
    // C shim over libjq: one call that runs a jq program over a JSON text.
    .target(name: "CJQ", linkerSettings: [.linkedLibrary("jq")]),
    // C shim over ncursesw: accessors for its globals and macros.
    .target(name: "CNcurses", linkerSettings: [.linkedLibrary("ncursesw")]),
    // The pure Elm-style UI core: state, messages, update, view. No curl, ncurses, threads, clock.
    .target(name: "Workbench", dependencies: ["TerminalUI", "RequestEngine", "Workspace"]),
    // What the two executables share: stdout and stderr, exit statuses, the workspace a command
    // names, the TUI's history step.
    .target(name: "CommandLineSupport", dependencies: ["RequestEngine", "Workspace", "Workbench", "TerminalUI"]),
    .executableTarget(
      name: "reqbench",
      dependencies: ["RequestEngine", "Workspace", "DemoServer", "Workbench", "TerminalUI", "CNcurses", "CommandLineSupport"]
    ),
    // The developer benchmarks `Benchmarks/` runs (not shipped): `swift build --product reqbench-bench`.
    .executableTarget(
      name: "reqbench-bench",
      dependencies: ["RequestEngine", "Workspace", "Workbench", "TerminalUI", "CommandLineSupport"],
      path: "Benchmarks/reqbench-bench"
    ),
    // Test helpers: where the real servers are, and helpers to reach them.
    .target(name: "TestSupport", dependencies: ["RequestEngine", "CSpawn"], path: "Tests/TestSupport"),
    .target(name: "CSpawn", path: "Tests/CSpawn"),
    .testTarget(name: "RequestEngineTests", dependencies: ["RequestEngine", "TestSupport"]),
    .testTarget(name: "WorkspaceTests", dependencies: ["Workspace", "TestSupport"]),
    .testTarget(name: "DemoServerTests", dependencies: ["DemoServer", "Digest", "JSON", "TestSupport"]),
    .testTarget(name: "ReqbenchTests", dependencies: ["RequestEngine", "TerminalUI", "TestSupport", "reqbench", "CommandLineSupport"]),
    .target(name: "TerminalUI"),
    .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "TestSupport"]),
    .testTarget(
      name: "WorkbenchTests", dependencies: ["Workbench", "TestSupport"],
      exclude: ["Snapshots"]),
  ],
  swiftLanguageModes: [.v6]
)
