import CommandLineSupport
import DemoServer
import RequestEngine

/// `reqbench demo-server [--port N]`: the embedded demo server on 127.0.0.1 until SIGINT or
/// SIGTERM.
enum DemoServerCommand {
  static let usage = """
    usage: reqbench demo-server [--port N]
      runs the embedded demo server on 127.0.0.1 (default port 8080; 0 picks a free one) until Ctrl-C;
      workspaces/demo.json targets it (reqbench --demo starts one and opens the TUI on it)
    """

  static let command = Subcommand(
    name: "demo-server", summary: "run the embedded demo server", synopsis: ["reqbench demo-server [--port N]"],
    description: "runs the embedded demo server on 127.0.0.1 (default port 8080; 0 picks a free one)",
    usage: usage, options: [.text("--port")], watchesSignals: true, run: run)

  static func run(_ arguments: ParsedArguments) -> Int32 {
    var port = 8080
    if let value = arguments.value("--port") {
      guard let p = Int(value), (0...65535).contains(p) else {
        return CLI.usageError("--port needs a number from 0 to 65535, got \"\(value)\"")
      }
      port = p
    }
    if let extra = arguments.positional.first {
      return CLI.usageError("demo-server: unexpected argument \"\(extra)\"; it takes only --port N")
    }
    return serve(port: port)
  }

  /// `reqbench demo-server`: serves until SIGINT or SIGTERM.
  static func serve(port: Int) -> Int32 {
    let server: DemoServer
    do {
      server = try DemoServer(port: port)
    } catch {
      Terminal.error("reqbench: cannot start the demo server on port \(port): \(error); choose another with --port N (0 picks a free one)")
      return ExitStatus.failure
    }
    server.start()
    Output.standard.line("listening on \(server.baseURL)")
    Output.standard.flush()
    Signals.waitForTermination()
    server.stop()
    return ExitStatus.success
  }

}
