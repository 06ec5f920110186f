// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "reqbench",
  products: [
    .library(name: "RequestEngine", targets: ["RequestEngine"]),
    .library(name: "Workspace", targets: ["Workspace"]),
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
    .target(name: "RequestEngine", dependencies: ["CCurl"]),
    // The workspace file: parsing with positions, the model, templating, atomic saves.
    .target(name: "Workspace", dependencies: ["RequestEngine"]),
    // The embedded demo server, also the project's fixture server for byte-level faults.
    .target(name: "DemoServer"),
    .executableTarget(
      name: "reqbench",
      dependencies: ["RequestEngine", "Workspace", "DemoServer"]
    ),
    // Test helpers: where the real servers are, and helpers to reach them.
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(name: "RequestEngineTests", dependencies: ["RequestEngine", "TestSupport"]),
    .testTarget(name: "WorkspaceTests", dependencies: ["Workspace", "TestSupport"]),
    .testTarget(name: "DemoServerTests", dependencies: ["DemoServer", "TestSupport"]),
    .testTarget(name: "ReqbenchTests", dependencies: ["RequestEngine", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
