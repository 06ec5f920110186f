import CommandLineSupport
import Formats
import Foundation
import RequestEngine
import Workspace

/// `reqbench export curl|httpie|http|har WORKSPACE TARGET...`: prints requests of a workspace as
/// curl or HTTPie commands (prepared: variables filled in, secrets masked), as an `.http` file
/// (templates, `{{vars}}` kept) or as a HAR.
enum ExportCommand {
  static let usage = """
    usage: reqbench export curl WORKSPACE TARGET... [--env NAME] [--var K=V]... [--reveal-secrets]
           reqbench export httpie WORKSPACE TARGET... [--env NAME] [--var K=V]... [--reveal-secrets]
           reqbench export http WORKSPACE TARGET... [--env NAME]
           reqbench export har WORKSPACE TARGET... [--env NAME] [--var K=V]... [--reveal-secrets]
      curl   one curl command per request, as reqbench would send it; secrets show as ••••
             unless --reveal-secrets
      httpie one HTTPie command per request, the same request (secrets the same way)
      http   an .http file (JetBrains HTTP Client, VS Code REST Client) with {{variables}} kept,
             that runs on its own: @name = value lines for the variables it needs (of --env
             NAME, else the workspace's environment; secrets stay {{secret.NAME}}), absolute
             URLs ({{baseURL}}/path), and a # @reqbench {…} line for the fields only reqbench
             knows (priority, cache, validate, retry…), which import http reads back
      har    a HAR 1.2 file of the requests as reqbench would send them (no responses: status
             0); secrets show as •••• unless --reveal-secrets
    """

  enum Format: String, CaseIterable {
    case curl, httpie, http, har
  }

  struct Options {
    var format: Format
    var workspace: String
    var targets: [String]
    var environment: String?
    var variables: [(String, String)] = []
    var revealSecrets = false
  }

  static let command = Subcommand(
    name: "export", summary: "print requests as curl commands, .http text or a HAR file",
    synopsis: ["reqbench export curl|httpie|http|har WORKSPACE TARGET... [--env NAME] [--var K=V]... [--reveal-secrets]"],
    description: "prints requests as curl commands, .http text or a HAR file", usage: usage,
    arguments: [.choice(Format.allCases.map(\.rawValue)), .workspace, .target], repeats: true,
    options: [.environment, .variable, .flag("--reveal-secrets")], errorsShowUsage: true, run: run)

  static func parse(_ arguments: ParsedArguments) throws(UsageError) -> Options {
    let environment = arguments.value("--env")
    var variables: [(String, String)] = []
    for pair in arguments.values("--var") { variables.append(try OptionReader.variable(pair)) }
    let reveal = arguments.flag("--reveal-secrets")
    // The first option given that only the prepared formats take.
    let curlOnly = arguments.given.first { $0.name == "--var" || $0.name == "--reveal-secrets" }?.name
    let positional = arguments.positional
    let format = try OptionReader.choice(
      Format.self, positional.first, command: "export", missing: "export needs a format, a workspace and a target")
    let formatName = format.rawValue
    guard positional.count >= 3 else {
      throw UsageError(
        message: "export \(formatName) needs a workspace and at least one target (a request name)")
    }
    if format == .http, let curlOnly {
      throw UsageError(
        message: "\(curlOnly) applies to export curl; export http writes the templates with their "
          + "{{variables}} kept and the values of --env NAME as @name = value lines")
    }
    return Options(
      format: format, workspace: positional[1], targets: Array(positional.dropFirst(2)),
      environment: environment, variables: variables, revealSecrets: reveal)
  }

  static func run(_ arguments: ParsedArguments) -> Int32 {
    let options: Options
    do {
      options = try parse(arguments)
    } catch {
      return CLI.usageError("\(error.message)\n\(usage)")
    }
    let workspaceURL = URL(fileURLWithPath: options.workspace)
    guard let workspace = CommandWorkspace.load(options.workspace) else { return ExitStatus.usage }
    var templates: [RequestTemplate] = []
    for name in options.targets {
      guard let template = workspace.request(named: name) else {
        Terminal.error(unknownTargetMessage(name, names: workspace.requests.map(\.name), file: options.workspace))
        return ExitStatus.usage
      }
      templates.append(template)
    }

    switch options.format {
    case .http:
      do {
        Output.standard.data(
          try HTTPFileExporter.text(for: templates, in: workspace, environment: options.environment))
      } catch {
        Terminal.error("reqbench: \(options.workspace): \(error.message)")
        return ExitStatus.usage
      }
    case .curl, .httpie, .har:
      guard let secrets = CLI.loadSecrets(forWorkspace: workspaceURL) else { return ExitStatus.usage }
      let sources = VariableSources(
        overrides: Dictionary(options.variables, uniquingKeysWith: { _, last in last }),
        environment: options.environment, secrets: secrets)
      var requests: [Request] = []
      for template in templates {
        do {
          requests.append(try workspace.prepare(template, sources: sources))
        } catch {
          Terminal.error("reqbench: \(error.description)")
          return ExitStatus.usage
        }
      }
      if options.format == .har {
        Output.standard.data(JSONSerializer.pretty(HARRequestExporter.har(for: requests, revealSecrets: options.revealSecrets)) + "\n")
      } else {
        let commands = requests.map {
          options.format == .httpie
            ? HTTPieExporter.command(for: $0, revealSecrets: options.revealSecrets)
            : CurlExporter.command(for: $0, revealSecrets: options.revealSecrets)
        }
        Output.standard.data(commands.joined(separator: "\n\n") + "\n")
      }
    }
    return ExitStatus.success
  }

}
