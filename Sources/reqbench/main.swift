import CommandLineSupport
import Foundation
import RequestEngine

// The reqbench command: `CLI.run` finds the command in `Commands.all` and runs it.
signal(SIGPIPE, SIG_IGN)
// Before any thread exists, so that every thread inherits it (see `Signals`).
Signals.blockTermination()
let status = CLI.run(Array(CommandLine.arguments.dropFirst()))
Output.standard.flush()
// No engine thread may still run, or still be ending, while `exit` runs OpenSSL's and libcurl's
// clean-ups.
Agent.stopEveryEngine()
exit(status)
