import RequestEngine

/// Where `Workspace.addRequest` puts a new request.
public enum RequestPlacement: Sendable, Equatable {
  /// After the last request of the new request's folder (`users/` for `users/new`); at the end
  /// when that folder has none (or the name has no folder).
  case inFolder
  /// Right after the named request (the one selected in the list); at the end when there is none.
  case after(String)
  /// At this index of `requests` (clamped to the list).
  case index(Int)
}

/// A place in a batch or chain that names a request.
public enum RequestReference: Sendable, Equatable, CustomStringConvertible {
  /// `members[index]` of the batch.
  case batchMember(batch: String, index: Int)
  /// `steps[index]` of the chain, the whole step (captures and vars) kept for `restore`.
  case chainStep(chain: String, index: Int, step: ChainStep)

  /// `batch "smoke"`, `step 2 of chain "login-flow"`.
  public var description: String {
    switch self {
    case .batchMember(let batch, _): "batch \(JSONSerializer.quote(batch))"
    case .chainStep(let chain, let index, _): "step \(index + 1) of chain \(JSONSerializer.quote(chain))"
    }
  }
}

/// What `Workspace.deleteRequest` removed: everything `restore` needs to put it back exactly (the
/// request with the object it was read from, its place, and the batch members and chain steps
/// that named it), so a save after the undo writes the file as it was.
public struct RequestDeletion: Sendable, Equatable {
  public let request: RequestTemplate
  /// Its index in `requests`.
  public let index: Int
  /// The batch members and chain steps that named it, in file order; removed with it.
  public let references: [RequestReference]
}

/// The editing operations the TUI offers. Each changes the model only; `Workspace.encoded()`
/// (and `WorkspaceFile.save`) then writes just what changed over the file's text, so a save's
/// diff is the edit and nothing else. Every operation that can be refused throws
/// `WorkspaceEditError` (saying why) and then changes nothing.
extension Workspace {
  // MARK: - Names

  /// What is wrong with `name` as a request's name (nil when it is fine): it must not be empty,
  /// start or end with a space or `/`, hold an empty folder (`a//b`), a folder or name padded
  /// with spaces (`GET /users`), a folder or name `.` or `..`, or control characters.
  /// Folders are written with `/`: `users/get` is `get` in the folder `users`.
  /// `followingTheRules(_:)` makes a name that breaks them one that follows them.
  public static func problem(withName name: String) -> String? {
    if name.trimmingSpaces().isEmpty { return "a request needs a name" }
    if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
      return "a name cannot hold control characters (tabs, line breaks, escapes)"
    }
    if name.first?.isWhitespace == true || name.last?.isWhitespace == true {
      return "a name cannot start or end with a space"
    }
    if name.hasPrefix("/") || name.hasSuffix("/") {
      return "a name cannot start or end with /; write folder/name"
    }
    if name.contains("//") { return "a folder name cannot be empty (\(JSONSerializer.quote(name)))" }
    // `GET /users` typed where a name goes: a folder `GET ` no one would find again.
    if let padded = name.split(separator: "/").first(where: { $0.first?.isWhitespace == true || $0.last?.isWhitespace == true }) {
      return "a folder or name between / cannot start or end with a space "
        + "(\(JSONSerializer.quote(String(padded))) in \(JSONSerializer.quote(name)))"
    }
    if name.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) {
      return "a folder or name cannot be . or .. (\(JSONSerializer.quote(name)))"
    }
    return nil
  }

  /// `name` made to follow the rules of `problem(withName:)`: each control character becomes a
  /// space, each folder and the name lose the spaces around them, and empty, `.` and `..`
  /// folders are left out: `a/\u{1B}]0;P\u{07}/../0//x` is `a/]0;P/0/x`. Empty when nothing is
  /// left. A name that follows the rules is returned as it is.
  public static func followingTheRules(_ name: String) -> String {
    if problem(withName: name) == nil { return name }
    var text = String.UnicodeScalarView()
    for scalar in name.unicodeScalars {
      text.append(scalar.properties.generalCategory == .control ? " " : scalar)
    }
    var segments: [Substring] = []
    for var segment in String(text).split(separator: "/") {
      // The same spaces the rules look for (`Character.isWhitespace`).
      while segment.first?.isWhitespace == true { segment.removeFirst() }
      while segment.last?.isWhitespace == true { segment.removeLast() }
      if !segment.isEmpty, segment != ".", segment != ".." { segments.append(segment) }
    }
    return segments.joined(separator: "/")
  }

  /// `name`, or `name-2`, `name-3`… when a request, batch or chain already has it: the name an
  /// import or a duplicate gets. (An import of many requests keeps one `TakenNames` instead of
  /// asking this for each.)
  public func uniqueName(_ name: String) -> String {
    Workspace.freeName(name, taken: Set(targetNames))
  }

  /// `name` when `taken` does not hold it, else the first of `name-2`, `name-3`… it does not.
  public static func freeName(_ name: String, taken: Set<String>) -> String {
    guard taken.contains(name) else { return name }
    var n = 2
    while taken.contains("\(name)-\(n)") { n += 1 }
    return "\(name)-\(n)"
  }

  /// Refuses a name that is not valid (see `problem(withName:)`) or that another request, batch
  /// or chain than `old` has.
  func checkNewName(_ name: String, replacing old: String?) throws(WorkspaceEditError) {
    if let problem = Workspace.problem(withName: name) { throw WorkspaceEditError(problem) }
    if name != old, targetNames.contains(name) {
      throw WorkspaceEditError(
        "\(JSONSerializer.quote(name)) is already the name of a request, batch or chain; names must be unique")
    }
  }

  private func index(ofRequest name: String) throws(WorkspaceEditError) -> Int {
    guard let index = requests.firstIndex(where: { $0.name == name }) else {
      throw WorkspaceEditError("there is no request named \(JSONSerializer.quote(name))")
    }
    return index
  }

  // MARK: - Adding

  /// Adds `request` where `placement` says and returns its index. Its name must be valid and
  /// unused (`uniqueName` suggests one).
  @discardableResult
  public mutating func addRequest(_ request: RequestTemplate, placement: RequestPlacement = .inFolder)
    throws(WorkspaceEditError) -> Int
  {
    try checkNewName(request.name, replacing: nil)
    let position: Int
    switch placement {
    case .index(let index): position = Swift.min(Swift.max(index, 0), requests.count)
    case .after(let name):
      position = requests.firstIndex(where: { $0.name == name }).map { $0 + 1 } ?? requests.count
    case .inFolder:
      let folder = Workspace.folder(ofName: request.name)
      position =
        folder.flatMap { folder in requests.lastIndex(where: { $0.name.hasPrefix(folder) }).map { $0 + 1 } }
        ?? requests.count
    }
    requests.insert(request, at: position)
    return position
  }

  /// `users/` for `users/get`; nil for a name outside folders.
  static func folder(ofName name: String) -> String? {
    name.lastIndex(of: "/").map { String(name[...$0]) }
  }

  /// Copies the request `name` (every field, unknown keys included) right after it, named
  /// `name-2` (`-3`… when taken); returns the copy.
  @discardableResult
  public mutating func duplicateRequest(named name: String) throws(WorkspaceEditError) -> RequestTemplate {
    let index = try index(ofRequest: name)
    var copy = requests[index]
    copy.name = uniqueName(name)
    requests.insert(copy, at: index + 1)
    return copy
  }

  // MARK: - Renaming

  /// Renames (or moves, by its folders: `users/get` → `people/get`) the request `name`. The
  /// batches and chains that name it follow.
  public mutating func renameRequest(_ name: String, to newName: String) throws(WorkspaceEditError) {
    let index = try index(ofRequest: name)
    guard newName != name else { return }
    try checkNewName(newName, replacing: name)
    requests[index].name = newName
    renameReferences([name: newName])
  }

  /// Renames the folder `folder` (`users` or `users/`) to `newFolder`: every request in it, its
  /// subfolders included, moves (`users/get` → `people/get`), and batches and chains follow.
  /// Returns the old and new names (`renameRequests` with each pair swapped undoes it). Refused
  /// when a new name is taken by a request outside it.
  @discardableResult
  public mutating func renameFolder(_ folder: String, to newFolder: String)
    throws(WorkspaceEditError) -> [(old: String, new: String)]
  {
    let from = folder.hasSuffix("/") ? folder : folder + "/"
    let to = newFolder.hasSuffix("/") ? newFolder : newFolder + "/"
    let moved = requests.filter { $0.name.hasPrefix(from) }.map(\.name)
    guard !moved.isEmpty else {
      throw WorkspaceEditError("there is no folder \(JSONSerializer.quote(from)) (no request name starts with it)")
    }
    guard from != to else { return [] }
    let pairs = moved.map { (old: $0, new: to + $0.dropFirst(from.count)) }
    try renameRequests(pairs)
    return pairs
  }

  /// Renames several requests at once, each `old` to its `new`: a new name may be one another of
  /// them gives up (`a/x` → `a/b/x` while `a/b/x` → `a/b/b/x`). Batches and chains follow. Refused,
  /// changing nothing, when a request is missing, a new name is not valid, two get the same one,
  /// or one is taken by a request, batch or chain that keeps its name.
  public mutating func renameRequests(_ pairs: [(old: String, new: String)]) throws(WorkspaceEditError) {
    var renames: [String: String] = [:]
    for pair in pairs {
      _ = try index(ofRequest: pair.old)
      if let problem = Workspace.problem(withName: pair.new) { throw WorkspaceEditError(problem) }
      renames[pair.old] = pair.new
    }
    let staying = Set(targetNames).subtracting(renames.keys)
    var taken = staying
    for pair in pairs where !taken.insert(pair.new).inserted {
      throw WorkspaceEditError(
        "\(JSONSerializer.quote(pair.new)) is already the name of a request, batch or chain; names must be unique")
    }
    for i in requests.indices { requests[i].name = renames[requests[i].name] ?? requests[i].name }
    renameReferences(renames)
  }

  /// Batch members and chain steps that name a renamed request (or chain) take the new name.
  private mutating func renameReferences(_ renames: [String: String]) {
    for b in batches.indices {
      for m in batches[b].members.indices {
        if let new = renames[batches[b].members[m]] { batches[b].members[m] = new }
      }
    }
    for c in chains.indices {
      for s in chains[c].steps.indices {
        if let new = renames[chains[c].steps[s].request] { chains[c].steps[s].request = new }
      }
    }
  }

  // MARK: - Deleting

  /// The batch members and chain steps that name the request `name`, in file order (chains
  /// first, as the file lists them before batches): what a delete removes with it.
  public func references(to name: String) -> [RequestReference] {
    var found: [RequestReference] = []
    for chain in chains {
      for (i, step) in chain.steps.enumerated() where step.request == name {
        found.append(.chainStep(chain: chain.name, index: i, step: step))
      }
    }
    for batch in batches {
      for (i, member) in batch.members.enumerated() where member == name {
        found.append(.batchMember(batch: batch.name, index: i))
      }
    }
    return found
  }

  /// Removes the request `name`, and the batch members and chain steps that name it (the file
  /// would not load with them). `restore` undoes it exactly.
  @discardableResult
  public mutating func deleteRequest(named name: String) throws(WorkspaceEditError) -> RequestDeletion {
    let index = try index(ofRequest: name)
    let references = references(to: name)
    // Later places first, so earlier indices stay valid.
    for reference in references.reversed() {
      switch reference {
      case .batchMember(let batch, let i):
        if let b = batches.firstIndex(where: { $0.name == batch }) { batches[b].members.remove(at: i) }
      case .chainStep(let chain, let i, _):
        if let c = chains.firstIndex(where: { $0.name == chain }) { chains[c].steps.remove(at: i) }
      }
    }
    return RequestDeletion(request: requests.remove(at: index), index: index, references: references)
  }

  /// Puts a deleted request back where it was, with the batch members and chain steps that
  /// named it: with no other edit in between, the workspace (and its saved text) is as before
  /// the delete. Refused when its name has been taken since.
  public mutating func restore(_ deletion: RequestDeletion) throws(WorkspaceEditError) {
    try checkNewName(deletion.request.name, replacing: nil)
    requests.insert(deletion.request, at: Swift.min(deletion.index, requests.count))
    for reference in deletion.references {
      switch reference {
      case .batchMember(let batch, let i):
        if let b = batches.firstIndex(where: { $0.name == batch }) {
          batches[b].members.insert(deletion.request.name, at: Swift.min(i, batches[b].members.count))
        }
      case .chainStep(let chain, let i, let step):
        if let c = chains.firstIndex(where: { $0.name == chain }) {
          chains[c].steps.insert(step, at: Swift.min(i, chains[c].steps.count))
        }
      }
    }
  }

  // MARK: - Changing a request

  /// Replaces the request `name` with `request` (which may have a new, still unique, name: then
  /// batches and chains follow), keeping its place and the keys of the file the app does not
  /// know.
  public mutating func update(_ request: RequestTemplate, named name: String) throws(WorkspaceEditError) {
    let source = requests[try index(ofRequest: name)].source
    try modifyRequest(named: name) { old in
      old = request
      old.source = source
    }
  }

  /// Applies `change` to the request `name`. A change of its name is a rename (checked, and
  /// batches and chains follow); anything else is taken as it is.
  public mutating func modifyRequest(named name: String, _ change: (inout RequestTemplate) -> Void)
    throws(WorkspaceEditError)
  {
    let index = try index(ofRequest: name)
    var request = requests[index]
    change(&request)
    if request.name != name { try checkNewName(request.name, replacing: name) }
    requests[index] = request
    if request.name != name { renameReferences([name: request.name]) }
  }

  // MARK: - Environment

  /// Selects the environment used when none is given (the `environment` key); nil selects none.
  public mutating func selectEnvironment(_ name: String?) throws(WorkspaceEditError) {
    if let name, !environments.contains(where: { $0.name == name }) {
      throw WorkspaceEditError(
        "there is no environment named \(JSONSerializer.quote(name)); "
          + (environments.isEmpty
            ? "this workspace has no \"environments\""
            : "use one of \(environments.map(\.name).joined(separator: ", "))"))
    }
    environment = name
  }

  /// Adds the environment `name` at the end of `environments`: empty, or with the variables of
  /// the environment `copying` (another host of the same API keeps the same names).
  public mutating func addEnvironment(_ name: String, copying source: String? = nil) throws(WorkspaceEditError) {
    try checkNewEnvironmentName(name)
    var variables: [Variable] = []
    if let source {
      guard let copied = environments.first(where: { $0.name == source }) else {
        throw WorkspaceEditError("there is no environment named \(JSONSerializer.quote(source))")
      }
      variables = copied.variables
    }
    environments.append(Environment(name: name, variables: variables))
  }

  /// Refuses a name that cannot be an environment's (`--env NAME` types it) or that one has.
  private func checkNewEnvironmentName(_ name: String) throws(WorkspaceEditError) {
    guard Template.isValidName(name) else {
      throw WorkspaceEditError(
        "\(JSONSerializer.quote(name)) cannot name an environment: use letters, digits, '_', '-' and '.' (--env NAME types it)")
    }
    guard !environments.contains(where: { $0.name == name }) else {
      throw WorkspaceEditError("there is already an environment named \(JSONSerializer.quote(name))")
    }
  }

  /// Renames the environment `old` to `new` (its variables and its place kept); when it was the
  /// one selected, `new` is.
  public mutating func renameEnvironment(_ old: String, to new: String) throws(WorkspaceEditError) {
    guard let index = environments.firstIndex(where: { $0.name == old }) else {
      throw WorkspaceEditError("there is no environment named \(JSONSerializer.quote(old))")
    }
    guard new != old else { return }
    try checkNewEnvironmentName(new)
    environments[index].name = new
    if environment == old { environment = new }
  }

  /// Removes the environment `name`; when it was the one selected, none is.
  public mutating func removeEnvironment(_ name: String) throws(WorkspaceEditError) {
    guard let index = environments.firstIndex(where: { $0.name == name }) else {
      throw WorkspaceEditError("there is no environment named \(JSONSerializer.quote(name))")
    }
    environments.remove(at: index)
    if environment == name { environment = nil }
  }

  // MARK: - Batches and chains

  /// Adds a batch of `members` (requests or chains, in order) at the end of `batches`.
  @discardableResult
  public mutating func makeBatch(
    named name: String, members: [String], policy: Batch.Policy = .failFast
  ) throws(WorkspaceEditError) -> Batch {
    try checkNewName(name, replacing: nil)
    if members.isEmpty { throw WorkspaceEditError("a batch needs at least one member") }
    let known = Set(requests.map(\.name)).union(chains.map(\.name))
    if let unknown = members.first(where: { !known.contains($0) }) {
      throw WorkspaceEditError(
        "there is no request or chain named \(JSONSerializer.quote(unknown)) (batches hold requests and chains)")
    }
    let batch = Batch(name: name, members: members, policy: policy)
    batches.append(batch)
    return batch
  }

  /// Adds a chain whose steps send `requests` in order (no captures yet) at the end of `chains`.
  @discardableResult
  public mutating func makeChain(named name: String, requests names: [String]) throws(WorkspaceEditError)
    -> Chain
  {
    try checkNewName(name, replacing: nil)
    if names.isEmpty { throw WorkspaceEditError("a chain needs at least one step") }
    if let unknown = names.first(where: { request(named: $0) == nil }) {
      throw WorkspaceEditError("there is no request named \(JSONSerializer.quote(unknown)) (chain steps are requests)")
    }
    let chain = Chain(name: name, steps: names.map { ChainStep(request: $0) })
    chains.append(chain)
    return chain
  }
}

/// The names a workspace's requests, batches and chains have, while many requests are added at
/// once (an import): each added name is found in a set (not among all the names, as
/// `Workspace.uniqueName` looks), and a name asked for again continues from the suffix it got
/// last, so adding n requests of one name is linear in n too.
package struct TakenNames {
  private var names: Set<String>
  /// For a name given a suffix before: the next suffix to try (`name-2`… below it are taken).
  private var nextSuffix: [String: Int] = [:]

  package init(_ names: [String]) {
    self.names = Set(names)
  }

  /// `name` when it is not taken, else the first of `name-2`, `name-3`… that is not (as
  /// `Workspace.freeName`); taken from now on.
  package mutating func take(_ name: String) -> String {
    var free = name
    if names.contains(name) {
      var n = nextSuffix[name] ?? 2
      while names.contains("\(name)-\(n)") { n += 1 }
      nextSuffix[name] = n + 1
      free = "\(name)-\(n)"
    }
    names.insert(free)
    return free
  }
}
