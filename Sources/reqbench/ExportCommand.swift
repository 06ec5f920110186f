/// Work in progress (being written now): replaced by the real command.
enum ExportCommand {
  static func run(_ args: [String]) -> Int32 {
    Terminal.error("reqbench: this command is being written")
    return ExitStatus.usage
  }
}
