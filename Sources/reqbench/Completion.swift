import CommandLineSupport
import Foundation
import Workspace

/// `reqbench completions bash|zsh|fish`: a completion script for the shell. The scripts are
/// thin: on each Tab they ask `reqbench completions complete -- WORD…` (the words after
/// `reqbench`, the last one being completed) what to offer, so commands and options come from
/// the command table (`Commands.all`) and request names and environments from the workspace
/// named on the line, in one place for the three shells.
enum CompletionsCommand {
  static let usage = """
    usage: reqbench completions bash|zsh|fish
      prints the completion script of the shell: commands, options, and the requests, folders,
      batches, chains and environments of the workspace on the line. Load it with
        bash   eval "$(reqbench completions bash)"        (in ~/.bashrc)
        zsh    eval "$(reqbench completions zsh)"         (in ~/.zshrc, after compinit)
        fish   reqbench completions fish | source         (in ~/.config/fish/config.fish)
    """

  static let command = Subcommand(
    name: "completions", summary: "print a shell completion script", synopsis: ["reqbench completions bash|zsh|fish"],
    description: """
      prints the shell's completion script (commands, options, and the requests
      and environments of the workspace on the line)
      """,
    usage: usage, arguments: [.choice(Completion.Shell.allCases.map(\.rawValue))], run: { run($0.positional) })

  static func run(_ args: [String]) -> Int32 {
    if args.first == "complete" {
      // What the scripts call (`complete -- WORD…`: the words are positional): never an
      // error (a Tab should not print one), nothing on stderr.
      let words = Array(args.dropFirst())
      let reply = Completion.reply(words.isEmpty ? [""] : words)
      Output.standard.data(([reply.files.rawValue] + reply.words).joined(separator: "\n") + "\n")
      Output.standard.flush()
      return ExitStatus.success
    }
    guard args.count == 1, let shell = Completion.Shell(rawValue: args[0]) else {
      Terminal.error("reqbench: completions needs the shell: bash, zsh or fish\n\(usage)")
      return ExitStatus.usage
    }
    Output.standard.data(shell.script)
    Output.standard.flush()
    return ExitStatus.success
  }
}

enum Completion {
  enum Shell: String, CaseIterable {
    case bash, zsh, fish

    var script: String {
      switch self {
      case .bash: bashScript
      case .zsh: zshScript
      case .fish: fishScript
      }
    }
  }

  /// Which files the shell should offer besides the words.
  enum Files: String {
    case none, any, workspaces, folders
  }

  struct Reply: Equatable {
    var files: Files = .none
    var words: [String] = []
  }

  /// What to offer for the last of `words` (the words after `reqbench`; the last is the one
  /// being completed, possibly empty). Words are those that start with it.
  static func reply(_ words: [String], workspaceNames: (String) -> Names = Names.read) -> Reply {
    let current = words.last ?? ""
    let before = Array(words.dropLast())
    var reply = unfiltered(current: current, before: before, workspaceNames: workspaceNames)
    reply.words = reply.words.filter { $0.hasPrefix(current) && !$0.contains(where: \.isNewline) }
    return reply
  }

  private static func unfiltered(current: String, before: [String], workspaceNames: (String) -> Names) -> Reply {
    guard let first = before.first else {
      if current.hasPrefix("-") { return Reply(words: Commands.tuiOptions.map(\.name)) }
      return Reply(files: .workspaces, words: Commands.all.map(\.name))
    }
    let command = Commands.named(first)
    let options = command?.options ?? Commands.tuiOptions
    // The words after the command: positional arguments, options and their values.
    var positional: [String] = command == nil ? [first] : []
    var workspace: String?
    var index = 1
    var awaitingValue: Option.Value?
    while index < before.count {
      let word = before[index]
      index += 1
      if let option = options.first(where: { $0.name == word }), option.value.takesValue {
        if index < before.count {
          if option.value == .workspace { workspace = before[index] }
          index += 1
        } else {
          awaitingValue = option.value
        }
      } else if !word.hasPrefix("-") || word == "-" {
        positional.append(word)
      }
    }
    let arguments = command?.arguments ?? []
    for (i, word) in positional.enumerated() where i < arguments.count && arguments[i] == .workspace {
      workspace = word
    }
    if command == nil { workspace = first }

    switch awaitingValue {
    case .choice(let words): return Reply(words: words)
    case .environment: return Reply(words: workspace.map { workspaceNames($0).environments } ?? [])
    case .folder: return Reply(files: .folders)
    case .workspace: return Reply(files: .workspaces)
    case .file: return Reply(files: .any)
    case .text: return Reply()
    case .flag, nil: break
    }
    if current.hasPrefix("-") {
      return Reply(words: options.map(\.name) + (options.contains { $0.name == "--help" } ? [] : ["--help"]))
    }
    guard let command else { return Reply() }
    let argument: Subcommand.Argument?
    if positional.count < command.arguments.count {
      argument = command.arguments[positional.count]
    } else {
      argument = command.repeats ? command.arguments.last : nil
    }
    switch argument {
    case .choice(let words): return Reply(words: words)
    case .workspace: return Reply(files: .workspaces)
    case .target: return Reply(words: workspace.map { workspaceNames($0).targets } ?? [])
    case .file: return Reply(files: .any)
    case nil: return Reply()
    }
  }

  /// What a workspace offers: its targets (requests, their folders, batches, chains) and its
  /// environments.
  struct Names {
    var targets: [String] = []
    var environments: [String] = []

    /// The workspace file's names; none when it cannot be read (a Tab never prints an error).
    static func read(_ path: String) -> Names {
      var file = WorkspaceFile(URL(fileURLWithPath: path))
      guard let workspace = try? file.load(), !file.isNew else { return Names() }
      var folders: [String] = []
      for request in workspace.requests {
        var prefix = ""
        for part in request.name.split(separator: "/", omittingEmptySubsequences: false).dropLast() {
          prefix += part + "/"
          if !folders.contains(prefix) { folders.append(prefix) }
        }
      }
      return Names(
        targets: workspace.requests.map(\.name) + folders + workspace.batches.map(\.name) + workspace.chains.map(\.name),
        environments: workspace.environments.map(\.name))
    }
  }

  // MARK: - The scripts

  /// bash: the words up to the cursor go to `reqbench completions complete`; files through
  /// `compgen`.
  static let bashScript = #"""
    # bash completion for reqbench: eval "$(reqbench completions bash)"
    _reqbench() {
      local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' kind
      local -a reply
      reply=($(command "${COMP_WORDS[0]}" completions complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
      kind=${reply[0]}
      COMPREPLY=("${reply[@]:1}")
      case $kind in
        any) COMPREPLY+=($(compgen -f -- "$cur")) ;;
        workspaces) COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -S / -- "$cur")) ;;
        folders) COMPREPLY+=($(compgen -d -S / -- "$cur")) ;;
      esac
      # A folder target (users/) or a folder is not finished: no space after it.
      if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then compopt -o nospace 2>/dev/null; fi
      return 0
    }
    complete -F _reqbench reqbench

    """#

  /// zsh: the same question from `words` and `CURRENT`; files through `_files`.
  static let zshScript = #"""
    #compdef reqbench
    # zsh completion for reqbench: eval "$(reqbench completions zsh)" after compinit
    _reqbench() {
      local -a reply
      local kind
      reply=("${(@f)$(command ${words[1]} completions complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
      kind=${reply[1]}
      shift reply
      local -a finished unfinished
      finished=(${reply:#*/})
      unfinished=(${(M)reply:#*/})
      (( ${#finished} )) && compadd -- "${finished[@]}"
      (( ${#unfinished} )) && compadd -S '' -- "${unfinished[@]}"
      case $kind in
        any) _files ;;
        workspaces) _files -g '*.json' ;;
        folders) _files -/ ;;
      esac
      return 0
    }
    if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
      _reqbench "$@"
    else
      compdef _reqbench reqbench
    fi

    """#

  /// fish: `commandline` gives the words; files through fish's own helpers.
  static let fishScript = #"""
    # fish completion for reqbench: reqbench completions fish | source
    function __reqbench_complete
        set -l words (commandline -opc)
        set -l current (commandline -ct)
        set -l reply (command $words[1] completions complete -- $words[2..-1] "$current" 2>/dev/null)
        for word in $reply[2..-1]
            echo $word
        end
        switch "$reply[1]"
            case any
                __fish_complete_path "$current"
            case workspaces
                for path in "$current"*.json "$current"*/
                    echo $path
                end
            case folders
                __fish_complete_directories "$current"
        end
    end
    complete -c reqbench -f -a '(__reqbench_complete)'

    """#
}
