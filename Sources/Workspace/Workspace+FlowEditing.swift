import RequestEngine

/// The editing operations on batches and chains the TUI's flow form offers: a batch's members,
/// mode and concurrency; a chain's steps, their captures and what a failed step does. Like the
/// request edits (`Workspace+Editing.swift`) each changes the model only, and one that is refused
/// throws `WorkspaceEditError` (saying why and what to do) and changes nothing; the writer then
/// puts back only what changed, keeping the file's spelling and unknown keys.
extension Workspace {
  // MARK: - Batches

  /// Puts `member` (a request or chain) at `index` of the batch's members, in place of the one
  /// there; nil appends it.
  public mutating func setBatchMember(_ member: String, at index: Int?, in batch: String) throws(WorkspaceEditError) {
    let b = try batchIndex(batch)
    let name = member.trimmingSpaces()
    guard !name.isEmpty else { throw WorkspaceEditError("write the name of a request or chain") }
    guard request(named: name) != nil || chain(named: name) != nil else {
      throw WorkspaceEditError(
        "there is no request or chain named \(JSONSerializer.quote(name)) (batches hold requests and chains)"
          + Workspace.suggestion(for: name, among: requests.map(\.name) + chains.map(\.name)))
    }
    if let index {
      guard batches[b].members.indices.contains(index) else { throw WorkspaceEditError("batch \(batch) has no member \(index + 1)") }
      batches[b].members[index] = name
    } else {
      batches[b].members.append(name)
    }
  }

  /// Removes the member at `index`; returns its name. A batch keeps at least one member.
  @discardableResult
  public mutating func removeBatchMember(at index: Int, from batch: String) throws(WorkspaceEditError) -> String {
    let b = try batchIndex(batch)
    return try Workspace.remove(
      &batches[b].members, at: index, missing: "batch \(batch) has no member \(index + 1)",
      last: "a batch needs at least one member: change this one instead (Enter edits it)")
  }

  /// Moves the member at `index` by `offset` places (−1 earlier, 1 later), within the list;
  /// returns where it is now.
  @discardableResult
  public mutating func moveBatchMember(at index: Int, by offset: Int, in batch: String) throws(WorkspaceEditError) -> Int {
    let b = try batchIndex(batch)
    return try Workspace.move(&batches[b].members, at: index, by: offset, what: "member")
  }

  public mutating func setBatchPolicy(_ policy: Batch.Policy, of batch: String) throws(WorkspaceEditError) {
    batches[try batchIndex(batch)].policy = policy
  }

  /// How many members run at once: 1 to `ValueLimits.concurrency`.
  public mutating func setBatchConcurrency(_ concurrency: Int, of batch: String) throws(WorkspaceEditError) {
    let b = try batchIndex(batch)
    guard (1...ValueLimits.concurrency).contains(concurrency) else {
      throw WorkspaceEditError("the concurrency is a whole number from 1 to \(ValueLimits.concurrency)")
    }
    batches[b].concurrency = concurrency
  }

  // MARK: - Chains

  /// Makes step `index` send the request `request` (its captures and vars kept); nil appends a
  /// new step sending it.
  public mutating func setChainStep(request: String, at index: Int?, in chain: String) throws(WorkspaceEditError) {
    let c = try chainIndex(chain)
    let name = request.trimmingSpaces()
    guard !name.isEmpty else { throw WorkspaceEditError("write the name of a request") }
    guard self.request(named: name) != nil else {
      throw WorkspaceEditError(
        "there is no request named \(JSONSerializer.quote(name)) (chain steps are requests)"
          + Workspace.suggestion(for: name, among: requests.map(\.name)))
    }
    if let index {
      guard chains[c].steps.indices.contains(index) else { throw WorkspaceEditError("chain \(chain) has no step \(index + 1)") }
      chains[c].steps[index].request = name
    } else {
      chains[c].steps.append(ChainStep(request: name))
    }
  }

  /// Removes step `index` with its captures and vars; returns it. A chain keeps at least one step.
  @discardableResult
  public mutating func removeChainStep(at index: Int, from chain: String) throws(WorkspaceEditError) -> ChainStep {
    let c = try chainIndex(chain)
    return try Workspace.remove(
      &chains[c].steps, at: index, missing: "chain \(chain) has no step \(index + 1)",
      last: "a chain needs at least one step: change this one's request instead (Enter edits it)")
  }

  /// Moves step `index` by `offset` places (−1 earlier, 1 later); returns where it is now.
  @discardableResult
  public mutating func moveChainStep(at index: Int, by offset: Int, in chain: String) throws(WorkspaceEditError) -> Int {
    let c = try chainIndex(chain)
    return try Workspace.move(&chains[c].steps, at: index, by: offset, what: "step")
  }

  /// Sets capture `index` of step `step` (nil: adds one at the end) to `name` ← `source`
  /// (`.token`, `header:ETag`, `status`, `event:.id`). The name must be a variable's (`{{name}}`
  /// uses it) and not another capture's of the step; a jq expression must compile.
  public mutating func setCapture(
    _ name: String, source: String, at index: Int?, step: Int, in chain: String
  ) throws(WorkspaceEditError) {
    let c = try chainIndex(chain)
    guard chains[c].steps.indices.contains(step) else { throw WorkspaceEditError("chain \(chain) has no step \(step + 1)") }
    guard Template.isValidName(name) else {
      throw WorkspaceEditError(
        "\(JSONSerializer.quote(name)) cannot name a captured variable: use letters, digits, '_', '-' and '.' ({{name}} uses it)")
    }
    let capture = try Workspace.checkedCapture(source)
    var captures = chains[c].steps[step].capture
    if captures.enumerated().contains(where: { $0.element.name == name && $0.offset != index }) {
      throw WorkspaceEditError("step \(step + 1) captures \(name) already; choose another name")
    }
    if let index {
      guard captures.indices.contains(index) else { throw WorkspaceEditError("step \(step + 1) has no capture \(index + 1)") }
      captures[index] = (name: name, source: capture)
    } else {
      captures.append((name: name, source: capture))
    }
    chains[c].steps[step].capture = captures
  }

  /// Removes capture `index` of step `step`.
  public mutating func removeCapture(at index: Int, step: Int, in chain: String) throws(WorkspaceEditError) {
    let c = try chainIndex(chain)
    guard chains[c].steps.indices.contains(step), chains[c].steps[step].capture.indices.contains(index) else {
      throw WorkspaceEditError("step \(step + 1) of chain \(chain) has no capture \(index + 1)")
    }
    chains[c].steps[step].capture.remove(at: index)
  }

  /// Moves capture `index` of step `step` by `offset` places; returns where it is now.
  @discardableResult
  public mutating func moveCapture(at index: Int, by offset: Int, step: Int, in chain: String) throws(WorkspaceEditError) -> Int {
    let c = try chainIndex(chain)
    guard chains[c].steps.indices.contains(step) else { throw WorkspaceEditError("chain \(chain) has no step \(step + 1)") }
    return try Workspace.move(&chains[c].steps[step].capture, at: index, by: offset, what: "capture")
  }

  public mutating func setChainOnFailure(_ onFailure: Chain.OnFailure, of chain: String) throws(WorkspaceEditError) {
    chains[try chainIndex(chain)].onFailure = onFailure
  }

  // MARK: - Helpers

  /// A capture's source as written, checked as the reader checks it: a jq expression compiles.
  static func checkedCapture(_ text: String) throws(WorkspaceEditError) -> Capture {
    let trimmed = text.trimmingSpaces()
    guard !trimmed.isEmpty else {
      throw WorkspaceEditError("a capture needs a source: a jq path (.token), header:Name, status or event")
    }
    let capture = Capture(trimmed)
    switch capture {
    case .header(let name) where name.isEmpty:
      throw WorkspaceEditError("header: needs the header's name (header:ETag)")
    case .jq(let expression), .event(let expression?):
      do throws(JQ.Failure) {
        try JQ.compile(expression)
      } catch {
        throw WorkspaceEditError("\(expression) does not compile: jq: \(JQ.summary(error.message))")
      }
    default:
      break
    }
    return capture
  }

  /// `; did you mean users/get?` when a name holds what was typed (or the other way round).
  static func suggestion(for typed: String, among names: [String]) -> String {
    let lower = typed.lowercased()
    let close = names.filter { $0.lowercased().contains(lower) || lower.contains($0.lowercased()) }.prefix(3)
    return close.isEmpty ? "" : "; did you mean \(close.joined(separator: ", "))?"
  }

  /// Removes `items[index]`, saying `missing` when there is no such item and `last` when it is the
  /// only one (a batch or chain keeps one).
  private static func remove<T>(_ items: inout [T], at index: Int, missing: String, last: String)
    throws(WorkspaceEditError) -> T
  {
    guard items.indices.contains(index) else { throw WorkspaceEditError(missing) }
    guard items.count > 1 else { throw WorkspaceEditError(last) }
    return items.remove(at: index)
  }

  private static func move<T>(_ items: inout [T], at index: Int, by offset: Int, what: String) throws(WorkspaceEditError) -> Int {
    guard items.indices.contains(index) else { throw WorkspaceEditError("there is no \(what) \(index + 1)") }
    let target = index + offset
    guard items.indices.contains(target) else {
      throw WorkspaceEditError(offset < 0 ? "the \(what) is the first already" : "the \(what) is the last already")
    }
    items.swapAt(index, target)
    return target
  }

  private func batchIndex(_ name: String) throws(WorkspaceEditError) -> Int {
    guard let index = batches.firstIndex(where: { $0.name == name }) else {
      throw WorkspaceEditError("there is no batch named \(JSONSerializer.quote(name))")
    }
    return index
  }

  private func chainIndex(_ name: String) throws(WorkspaceEditError) -> Int {
    guard let index = chains.firstIndex(where: { $0.name == name }) else {
      throw WorkspaceEditError("there is no chain named \(JSONSerializer.quote(name))")
    }
    return index
  }
}
