/// What the key table is shown as: the status bar's hints, the help overlay's lines and the
/// README's tables.
extension Keymap {
  /// A line of the help overlay.
  public enum HelpLine: Sendable, Equatable {
    case heading(String)
    case binding(keys: String, help: String)
    case note(String)
  }

  /// Every section with its bindings, as the help overlay lists them.
  public static let helpLines: [HelpLine] = KeySection.allCases.flatMap { section -> [HelpLine] in
    let lines = bindings.filter { $0.section == section }.map { HelpLine.binding(keys: $0.keyText, help: $0.help) }
    return [.heading(section.title)] + lines + (section.note.map { [.note($0)] } ?? [])
  }

  /// The hint of a binding: `Enter send`, `n/N next`.
  static func hintText(_ binding: KeyBinding, in context: KeyContext) -> String? {
    guard let hint = binding.hint, let key = binding.keys.first else { return nil }
    var keys = key.name
    if let pair = binding.hintPair, let other = Keymap.binding(pair, in: context)?.keys.first { keys += "/" + other.name }
    return keys + " " + hint
  }

  /// The first key of an action where it is bound (`y`), as the help writes it.
  static func keyName(_ action: Action, in context: KeyContext) -> String {
    binding(action, in: context)?.keys.first?.name ?? ""
  }

  /// The hint of an action where it is bound (`Ctrl-U clears`).
  public static func hint(_ action: Action, in context: KeyContext) -> String? {
    binding(action, in: context).flatMap { hintText($0, in: context) }
  }

  /// The status bar's hints in a context, its own first, then those of every pane; and the ones
  /// kept last when the bar is short (help and quit).
  public static func hints(in context: KeyContext) -> (hints: [String], essential: Set<String>) {
    let own = bindings.filter { $0.hintContexts.contains(context) && !$0.contexts.contains(.global) }
    let global = bindings.filter { $0.hintContexts.contains(context) && $0.contexts.contains(.global) }
    let hints = (own + global).compactMap { hintText($0, in: context) }
    let essential = Set(
      global.filter { $0.action == .help || $0.action == .quit }.compactMap { hintText($0, in: context) })
    return (hints, essential)
  }

  /// The README's key tables: one per section (`reqbench keys --markdown` prints them; a test
  /// fails when the README's differ).
  public static var markdown: String {
    func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
    var out: [String] = []
    for section in KeySection.allCases {
      let rows = bindings.filter { $0.section == section }
      if !out.isEmpty { out.append("") }
      out.append("| \(section.title) | |")
      out.append("|---|---|")
      for binding in rows { out.append("| \(cell(binding.keyText)) | \(cell(binding.help)) |") }
      if let note = section.note { out.append("| | \(cell(note)) |") }
    }
    return out.joined(separator: "\n") + "\n"
  }
}
