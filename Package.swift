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
    .target(name: "RequestEngine", dependencies: ["Base", "CCurl", "CSystem", "JSON", "Digest"]),
    // What every layer shares: the monotonic clock, terminal-safe escaping, XML text escaping,
    // reason phrases, byte / duration / age / status formatting. Depends on nothing.
    .target(name: "Base"),
    // C shim over the Linux calls Swift's Glibc module leaves out (sync_file_range).
    .target(name: "CSystem"),
    // JSON: the value (keys in order, numbers as written), the parser with every value's
    // line:column, the serializer, the format-preserving text editor, paths. One for every target.
    .target(name: "JSON"),
    // SHA-256, shared by the engine (cache keys) and the fixture server (body digests).
    .target(name: "Digest"),
    // The workspace model: the file read with positions and written preserving its layout,
    // templating, variables and secrets, prepare (a template made a request), the OAuth 2.0
    // settings, the state folder, atomic saves, jq.
    .target(name: "Workspace", dependencies: ["Base", "JSON", "RequestEngine", "Digest", "CJQ"]),
    // A workspace's sessions: the cookie jar files of the state folder and the OAuth 2.0 tokens
    // and grants (the model asks for them through CookieJarSource and TokenSource).
    .target(name: "Sessions", dependencies: ["Base", "RequestEngine", "Workspace", "Digest"]),
    // The history of sent requests: the SQLite store, its writer, search, pruning and migration,
    // the HAR export of history.
    .target(name: "History", dependencies: ["Base", "RequestEngine", "Workspace", "JSON", "CSQLite"]),
    // The batch and chain runner: runs a workspace's flows through the engine, reports progress.
    .target(name: "Flows", dependencies: ["Base", "RequestEngine", "Workspace", "History", "JSON"]),
    // Other tools' formats: importers (curl, HTTPie, HAR, Postman, Insomnia, Bruno, OpenAPI,
    // .http files; YAML and shell words), exporters, the JUnit test report.
    .target(name: "Formats", dependencies: ["Base", "RequestEngine", "Workspace", "History", "JSON", "CYAML"]),
    // C shim over SQLite (history): the calls Swift cannot make (a macro, a variadic function).
    .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
    // C shim over libyaml (OpenAPI import): its events flattened, so Swift reads no C union.
    .target(name: "CYAML", linkerSettings: [.linkedLibrary("yaml")]),
    // The embedded demo server, also the project's fixture server for byte-level faults.
    .target(name: "DemoServer", dependencies: ["Base", "Digest", "JSON"]),
    // C shim over libjq: one call that runs a jq program over a JSON text.
    .target(name: "CJQ", linkerSettings: [.linkedLibrary("jq")]),
    // C shim over ncursesw: accessors for its globals and macros.
    .target(name: "CNcurses", linkerSettings: [.linkedLibrary("ncursesw")]),
    // The pure Elm-style UI core: state, messages, update, view. No curl, ncurses, threads, clock.
    .target(name: "Workbench", dependencies: ["Base", "TerminalUI", "RequestEngine", "Workspace", "History", "Formats", "Flows"]),
    // What the two executables share: stdout and stderr, exit statuses, the workspace a command
    // names, the TUI's history step.
    .target(
      name: "CommandLineSupport",
      dependencies: ["Base", "RequestEngine", "Workspace", "History", "Formats", "Flows", "Workbench", "TerminalUI"]),
    .executableTarget(
      name: "reqbench",
      dependencies: [
        "Base", "RequestEngine", "Workspace", "Sessions", "History", "Formats", "Flows", "DemoServer", "Workbench",
        "TerminalUI", "CNcurses", "CommandLineSupport",
      ]
    ),
    // The developer benchmarks `Benchmarks/` runs (not shipped): `swift build --product reqbench-bench`.
    .executableTarget(
      name: "reqbench-bench",
      dependencies: [
        "Base", "RequestEngine", "Workspace", "History", "Formats", "Flows", "Workbench", "TerminalUI",
        "CommandLineSupport",
      ],
      path: "Benchmarks/reqbench-bench"
    ),
    // Test helpers: where the real servers are, and helpers to reach them.
    .target(name: "TestSupport", dependencies: ["Base", "RequestEngine", "CSpawn"], path: "Tests/TestSupport"),
    .target(name: "CSpawn", path: "Tests/CSpawn"),
    .testTarget(name: "RequestEngineTests", dependencies: ["Base", "RequestEngine", "TestSupport"]),
    .testTarget(name: "JSONTests", dependencies: ["Base", "JSON", "RequestEngine", "TestSupport"]),
    // Helpers for the tests of the workspace model and of the targets built on it.
    .target(
      name: "WorkspaceTestSupport", dependencies: ["RequestEngine", "Workspace", "TestSupport"],
      path: "Tests/WorkspaceTestSupport"),
    .testTarget(
      name: "WorkspaceTests",
      dependencies: ["Base", "Workspace", "Sessions", "History", "Formats", "Flows", "TestSupport", "WorkspaceTestSupport"]),
    .testTarget(
      name: "SessionsTests", dependencies: ["Base", "Workspace", "Sessions", "TestSupport", "WorkspaceTestSupport"]),
    .testTarget(
      name: "HistoryTests", dependencies: ["Base", "Workspace", "History", "TestSupport", "WorkspaceTestSupport"]),
    .testTarget(
      name: "FormatsTests",
      dependencies: ["Base", "JSON", "RequestEngine", "Workspace", "History", "Formats", "Flows", "TestSupport", "WorkspaceTestSupport"]),
    .testTarget(
      name: "FlowsTests",
      dependencies: ["Base", "Workspace", "History", "Flows", "TestSupport", "WorkspaceTestSupport"]),
    .testTarget(name: "DemoServerTests", dependencies: ["DemoServer", "Digest", "JSON", "TestSupport"]),
    .testTarget(
      name: "ReqbenchTests",
      dependencies: ["Base", "RequestEngine", "TerminalUI", "TestSupport", "reqbench", "CommandLineSupport"]),
    .target(name: "TerminalUI", dependencies: ["Base"]),
    .testTarget(name: "TerminalUITests", dependencies: ["Base", "TerminalUI", "TestSupport"]),
    .testTarget(
      name: "WorkbenchTests", dependencies: ["Base", "Workbench", "Sessions", "History", "Flows", "TestSupport"],
      exclude: ["Snapshots"]),
  ],
  swiftLanguageModes: [.v6]
)
