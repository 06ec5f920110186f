import Foundation
import RequestEngine
import Workspace

/// The Elm-style update: applies one message to the state and returns the side effects to run.
/// Pure: no I/O, no clock, no threads.
public func update(_ state: inout AppState, _ msg: Msg) -> [Command] {
  switch msg {
  case .resize(let width, let height):
    state.width = width
    state.height = height
    state.clampSelections()
    state.keepSelectionsInView()
    return []
  case .tick(let date):
    state.now = date
    return []
  case .agent(let event):
    state.apply(event)
    return []
  case .key(let key):
    return state.handle(key)
  case .mouse(let event):
    return state.handle(event)
  case .editorFinished(let text, let error):
    if let error {
      state.message = StatusMessage("$EDITOR failed: \(error); set EDITOR to your editor's command", isError: true)
    } else if let text, let template = state.selectedRequest {
      do {
        state.replace(template, with: try template.applyingBody(text))
        state.message = StatusMessage("body updated; Ctrl-S saves the workspace")
      } catch {
        state.message = StatusMessage(error.message, isError: true)
      }
    } else if text == nil {
      state.message = StatusMessage("body unchanged")
    }
    return []
  case .saved(let error):
    let quitting = state.quitAfterSave
    state.quitAfterSave = false
    if let error {
      state.message = StatusMessage(
        "not saved: \(error)" + (quitting ? "; not quitting (q then d quits without saving)" : ""), isError: true)
      return []
    }
    state.unsaved = []
    state.message = StatusMessage("saved \(state.workspaceFile)")
    return quitting ? [.quit] : []
  case .bodyFileExists(let path):
    guard case .writeBody(let id, let target, let output, _)? = state.pendingWrite else { return [] }
    state.pendingWrite = nil
    state.confirmOverwrite = .writeBody(id, path: target, jqOutput: output, overwrite: true)
    state.message = StatusMessage("\(path) exists: overwrite? y/n")
    return []
  case .bodyWritten(let path, let error):
    state.pendingWrite = nil
    state.message = error.map { StatusMessage("cannot write \(path): \($0); choose another path", isError: true) }
      ?? StatusMessage("body written to \(path)")
    return []
  case .filtered(let expression, let result):
    // A result nobody waits for any more (Esc, another exchange, another filter): dropped.
    guard state.viewer.filterRunning == expression else { return [] }
    state.viewer.filterRunning = nil
    switch result {
    case .success(let output):
      state.viewer.filter = expression
      state.viewer.filtered = BodyDocument(text: output)
      state.viewer.filteredText = output
      state.viewer.scroll = 0
      state.message = StatusMessage("jq \(expression) (Esc clears)")
    case .failure(let error):
      state.message = StatusMessage(Formatting.jqError(error.message), isError: true)
    }
    return []
  case .flowStarted(let run, let name, let kind, let fromStep):
    state.startFlow(run: run, name: name, kind: kind, fromStep: fromStep)
    return []
  case .flow(let run, let event):
    state.apply(event, run: run)
    return []
  case .searchContinue:
    return state.continueSearch()
  case .historyShown(let view, let error):
    if view != nil || error == nil {
      // A late answer (the viewer moved on: a send, another exchange) or one for an earlier key.
      guard state.historyWanted != nil else { return [] }
      state.historyWanted = nil
    }
    if let error {
      state.message = StatusMessage("history: \(error)", isError: true)
    } else if let view {
      // The first step back: the newest entry may be the response already shown (recorded when it
      // ended); then the one before it.
      if state.viewer.history == nil, view.position == 0, let live = state.shownExchange?.result,
        view.entry.exchangeID == live.id, abs(view.entry.date.timeIntervalSince(live.finishedAt)) < 1
      {
        guard view.count > 1 else {
          state.message = StatusMessage("no older response in history")
          return []
        }
        return state.requestHistory(view.entry.name, position: 1)
      }
      state.viewer.history = view
      state.viewer.scroll = 0
      state.viewer.filter = nil
      state.viewer.filtered = nil
      state.viewer.filteredText = nil
      state.viewer.filterRunning = nil
      state.viewer.matchLine = nil
      state.viewer.searching = nil
      let response = view.result.response
      state.viewer.document = response.map { BodyDocument(body: $0.body, mediaType: $0.mediaType) }
      state.message = StatusMessage("history \(view.position + 1)/\(view.count): [ older · ] newer · Esc back")
    } else {
      state.message = StatusMessage(
        state.viewer.history == nil ? "no history for this request yet" : "no older response in history")
    }
    return []
  }
}

extension AppState {
  // MARK: - Agent events

  mutating func apply(_ event: AgentEvent) {
    switch event {
    case .queued(let id, let request):
      var row = ExchangeRow(
        id: id, name: request.name, method: request.method, url: request.redacted().url, state: .queued)
      var context: [String] = []
      if let batch = request.tags["batch"] { context.append(batch) }
      if let chain = request.tags["chain"] {
        context.append(chain + (request.tags["step"].map { " \($0)/\(request.tags["steps"] ?? "?")" } ?? ""))
      }
      row.context = context.isEmpty ? nil : context.joined(separator: " › ")
      row.flowRun = request.tags["flow"]
      row.member = request.tags["member"].flatMap { Int($0) }
      if let run = row.flowRun, let member = row.member, let index = flows.firstIndex(where: { $0.run == run }) {
        flows[index].memberExchanges[member] = id
      }
      row.downloadTarget = request.download?.path
      row.secrets = request.secrets
      if let target = row.downloadTarget {
        // This exchange carries on with the file: older rows of it are no longer resumable.
        for i in exchanges.indices where exchanges[i].downloadTarget == target { exchanges[i].superseded = true }
      }
      exchanges.insert(row, at: 0)
      if following == request.name {
        following = nil
        queueFlowSelection = nil
        queueSelection = 0
        show(id)
      } else if exchanges.count > 1 {
        queueSelection += 1  // keep the selected row selected
      }
    case .started(let id, let attempt):
      let now = self.now
      mutateRow(id) {
        $0.state = .running
        $0.attempt = attempt
        $0.retrying = false
        if $0.startedAt == nil { $0.startedAt = now }
      }
      // A batch member leaves the queue of its batch's concurrency.
      if let row = exchanges.first(where: { $0.id == id }), let run = row.flowRun, let member = row.member,
        let index = flows.firstIndex(where: { $0.run == run })
      {
        flows[index].startedMembers.insert(member)
      }
    case .headers(let id, let status, _):
      mutateRow(id) { $0.status = status }
    case .progress(let id, let progress):
      mutateRow(id) { $0.progress = progress }
    case .retrying(let id, _, _, _):
      mutateRow(id) {
        $0.retrying = true
        $0.state = .queued
      }
    case .delivered(let result):
      // An early response (the cached one of cacheThenNetwork): shown while the fresh one comes.
      mutateRow(result.id) {
        $0.status = result.response?.status
        $0.result = result
      }
      if viewer.exchange == result.id {
        viewer.document = nil
        show(result.id)
      }
    case .finished(let result):
      mutateRow(result.id) {
        $0.state = result.state
        // A cancelled exchange keeps the status its headers brought.
        $0.status = result.response?.status ?? $0.status
        $0.result = result
      }
      if viewer.exchange == result.id {
        viewer.document = nil
        show(result.id)
      }
      replaceAwaitedMessage(result)
    }
  }

  /// A transient message whose transfers ended gives way to their outcome (unless another
  /// message took its place meanwhile).
  private mutating func replaceAwaitedMessage(_ result: ExchangeResult) {
    guard let awaiting else { return }
    let outcome: StatusMessage
    switch awaiting {
    case .exchange(let name, let shown):
      guard result.request.name == name else { return }
      self.awaiting = nil
      guard message == nil || message == shown else { return }
      switch result.state {
      case .succeeded:
        if let download = result.download, download.complete {
          outcome = StatusMessage("\(name): saved to \(download.file) (\(Formatting.bytes(Int(download.bytes))))")
        } else {
          outcome = StatusMessage("\(name): " + (result.response.map { Formatting.status($0.status) } ?? "succeeded"))
        }
      case .cancelled:
        let kept = result.download.flatMap { $0.resumable ? Formatting.bytes(Int($0.bytes)) : nil }
        outcome = StatusMessage("\(name): cancelled" + (kept.map { "; \($0) kept, r resumes" } ?? ""))
      default:
        outcome = StatusMessage("\(name) failed: \(result.error?.message ?? result.state.rawValue)", isError: true)
      }
    case .cancelAll(let cancelled, let shown):
      let count = cancelled + (result.state == .cancelled ? 1 : 0)
      guard !isBusy else {
        self.awaiting = .cancelAll(cancelled: count, message: shown)
        return
      }
      self.awaiting = nil
      guard message == nil || message == shown else { return }
      outcome = StatusMessage("cancelled everything: \(count) exchange\(count == 1 ? "" : "s") cancelled")
    }
    message = outcome
  }

  mutating func apply(_ event: FlowEvent, run: String) {
    // A step whose capture failed: its exchange row shows the step failed, not `succeeded 200`
    // (chains in batches too).
    if case .stepFinished(_, _, let outcome) = event, let failure = outcome.captureFailure, let id = outcome.exchange?.id {
      mutateRow(id) {
        $0.flowFailure = (state: "failed", message: "capture failed: " + FlowRow.short(failure))
      }
    }
    guard let index = flows.firstIndex(where: { $0.run == run }) else { return }
    let isChain = flows[index].kind == .chain
    switch event {
    case .step(let chain, let batch, let step, let count, _):
      // A chain inside a batch reports its steps too; the row follows only its own chain.
      guard isChain, batch == nil, chain == flows[index].name else { return }
      flows[index].step = step
      flows[index].steps = count
    case .captured(let chain, let batch, let step, let values):
      guard isChain, batch == nil, chain == flows[index].name else { return }
      flows[index].captured += values.map { (step: step, name: $0.name, value: $0.value) }
    case .stepFinished(let chain, let batch, let outcome):
      // A failed step of a chain that goes on shows ✗ while the chain still runs.
      guard isChain, batch == nil, chain == flows[index].name, let step = outcome.step else { return }
      flows[index].stepStates[step] = outcome.state
    case .member(let batch, let member, let done, let total, let outcome):
      guard flows[index].kind == .batch, batch == flows[index].name else { return }
      flows[index].done = done
      flows[index].total = total
      flows[index].members[member] = outcome
      switch outcome.state {
      case .succeeded: flows[index].succeeded += 1
      case .cancelled: flows[index].cancelled += 1
      default: flows[index].failed += 1
      }
    case .finished(let outcome):
      guard outcome.name == flows[index].name, outcome.kind == flows[index].kind else { return }
      flows[index].state = outcome.state
      flows[index].outcome = outcome
      if outcome.kind == .batch {
        flows[index].total = outcome.members.count
        flows[index].done = outcome.members.count
        for (member, result) in outcome.members.enumerated() { flows[index].members[member] = result }
      }
      if outcome.kind == .chain {
        // Step numbers are absolute: a resumed run keeps what the steps before it captured.
        let first = flows[index].firstStep
        for step in outcome.steps { if let number = step.step { flows[index].stepStates[number] = step.state } }
        flows[index].captured = flows[index].captured.filter { $0.step < first }
          + outcome.steps.flatMap { step in
            step.captured.map { (step: step.step ?? 0, name: $0.name, value: $0.value) }
          }
      }
      message = StatusMessage(
        "\(outcome.kind.rawValue) \(outcome.name) \(outcome.state.rawValue)"
          + (FlowRow.detail(outcome).map { ": " + $0 } ?? ""),
        isError: outcome.state == .failed)
    }
  }

  /// A new run's row, newest first; a chain resumed at `fromStep` starts with the earlier steps'
  /// states and values from the latest run of that chain.
  mutating func startFlow(run: String, name: String, kind: FlowOutcome.Kind, fromStep: Int) {
    var row = FlowRow(run: run, name: name, kind: kind)
    if kind == .chain, fromStep > 1 {
      row.firstStep = fromStep
      row.step = fromStep
      let earlier = flows.first { $0.name == name && $0.kind == .chain }
      for step in 1..<fromStep { row.stepStates[step] = earlier?.stepStates[step] ?? .succeeded }
      row.captured = earlier?.captured.filter { $0.step < fromStep } ?? []
    }
    for exchange in exchanges where exchange.flowRun == run {
      if let member = exchange.member {
        row.memberExchanges[member] = row.memberExchanges[member] ?? exchange.id
        if exchange.state != .queued { row.startedMembers.insert(member) }
      }
    }
    // Resuming the run the queue or the viewer shows: they follow the new run.
    let shown = queueFlowSelection?.run ?? viewer.flow
    let resumesShown = fromStep > 1 && shown.flatMap { run in flows.first { $0.run == run } }?.name == name
    flows.insert(row, at: 0)
    if resumesShown { selectQueueFlow(.flow(run: run)) }
  }

  private mutating func mutateRow(_ id: ExchangeID, _ change: (inout ExchangeRow) -> Void) {
    guard let index = exchanges.firstIndex(where: { $0.id == id }) else { return }
    change(&exchanges[index])
  }

  var selectedExchange: ExchangeRow? {
    exchanges.indices.contains(queueSelection) ? exchanges[queueSelection] : nil
  }

  var shownExchange: ExchangeRow? {
    viewer.exchange.flatMap { id in exchanges.first { $0.id == id } }
  }

  /// Shows an exchange in the viewer, building its body document once it has one.
  mutating func show(_ id: ExchangeID) {
    let changed = viewer.exchange != id || viewer.history != nil
    if changed { historyWanted = nil }
    viewer.history = nil
    viewer.flow = nil
    viewer.exchange = id
    if changed {
      viewer.scroll = 0
      viewer.matchLine = nil
      viewer.searching = nil
      viewer.filter = nil
      viewer.filtered = nil
      viewer.filteredText = nil
      viewer.filterRunning = nil
    }
    if let response = shownExchange?.result?.response {
      if changed || viewer.document == nil {
        // A spilled body is mapped, not read: opening it costs the same whatever its size.
        viewer.document = BodyDocument(body: response.body, mediaType: response.mediaType)
      }
    } else {
      viewer.document = nil
    }
  }

  // MARK: - Keys

  mutating func handle(_ key: Key) -> [Command] {
    if let overlay { return handle(key, in: overlay) }
    if layout.tooSmall {
      // Nothing else is on the screen: keys that act unseen are ignored.
      switch key {
      case .char("q"), .ctrl("c"): return quit()
      default: return []
      }
    }
    if let command = confirmOverwrite {
      confirmOverwrite = nil
      if key == .char("y") || key == .char("Y") {
        pendingWrite = command
        return [command]
      }
      message = StatusMessage("not written")
      return []
    }
    if prompt != nil { return handlePrompt(key) }
    if editing != nil { return handleEditing(key) }
    message = nil

    switch key {
    case .char("q"):
      return quit()
    case .ctrl("c"):
      return quit()
    case .char("?"), .function(1):
      overlay = .help
      return []
    case .tab:
      focus = Pane(rawValue: (focus.rawValue + 1) % Pane.allCases.count) ?? .requests
      return []
    case .backTab:
      focus = Pane(rawValue: (focus.rawValue + Pane.allCases.count - 1) % Pane.allCases.count) ?? .requests
      return []
    case .char("1"), .char("2"), .char("3"), .char("4"):
      if case .char(let c) = key, let n = c.wholeNumberValue { focus = Pane(rawValue: n - 1) ?? focus }
      return []
    case .char("C"):
      guard isBusy else {
        message = StatusMessage("nothing is running")
        return []
      }
      let cancelling = StatusMessage("cancelling everything")
      message = cancelling
      awaiting = .cancelAll(cancelled: 0, message: cancelling)
      return [.cancelAll]
    case .ctrl("s"):
      return [.save]
    default:
      break
    }

    switch focus {
    case .requests: return handleRequestsKey(key)
    case .editor: return handleEditorKey(key)
    case .response: return handleResponseKey(key)
    case .queue: return handleQueueKey(key)
    }
  }

  /// `q` and Ctrl-C: asks first while transfers run, then while edits are unsaved.
  private mutating func quit() -> [Command] {
    if isBusy {
      overlay = .confirmQuit
      return []
    }
    if !unsaved.isEmpty {
      overlay = .unsavedChanges
      return []
    }
    return [.quit]
  }

  private mutating func handle(_ key: Key, in overlay: Overlay) -> [Command] {
    switch overlay {
    case .help:
      let page = max(1, Painter.helpRows(height: height))
      let last = max(0, Painter.helpLines.count - page)
      switch key {
      case .down, .char("j"): helpScroll = min(last, helpScroll + 1)
      case .up, .char("k"): helpScroll = max(0, helpScroll - 1)
      case .pageDown, .ctrl("d"), .char(" "): helpScroll = min(last, helpScroll + page)
      case .pageUp, .ctrl("u"): helpScroll = max(0, helpScroll - page)
      case .home, .char("g"): helpScroll = 0
      case .end, .char("G"): helpScroll = last
      default:
        self.overlay = nil
        helpScroll = 0
      }
      return []
    case .confirmQuit:
      switch key {
      case .char("y"), .char("Y"), .enter, .ctrl("c"):
        if !unsaved.isEmpty, key != .ctrl("c") {
          self.overlay = .unsavedChanges
          return [.cancelAll]
        }
        self.overlay = nil
        return [.cancelAll, .quit]
      default:
        self.overlay = nil
        message = StatusMessage("not quitting; C cancels every transfer")
        return []
      }
    case .unsavedChanges:
      switch key {
      case .char("s"), .char("S"), .char("y"), .char("Y"), .enter:
        self.overlay = nil
        quitAfterSave = true
        return [.save]
      case .char("d"), .char("D"), .ctrl("c"):
        self.overlay = nil
        return [.quit]
      default:
        self.overlay = nil
        message = StatusMessage("not quitting; Ctrl-S saves the workspace")
        return []
      }
    }
  }

  /// Up, down, page and home/end over `count` items; returns the new index.
  private func move(_ key: Key, _ index: Int, count: Int, page: Int) -> Int? {
    guard count > 0 else { return nil }
    let target: Int
    switch key {
    case .down, .char("j"): target = index + 1
    case .up, .char("k"): target = index - 1
    case .pageDown, .ctrl("d"): target = index + max(1, page)
    case .pageUp, .ctrl("u"): target = index - max(1, page)
    case .home, .char("g"): target = 0
    case .end, .char("G"): target = count - 1
    default: return nil
    }
    return min(max(0, target), count - 1)
  }

  // MARK: Requests pane

  private mutating func handleRequestsKey(_ key: Key) -> [Command] {
    let count = selectableCount
    if let index = move(key, requestSelection, count: count, page: layout.contentHeight(of: .requests)) {
      selectRequest(index)
      return []
    }
    if let flow = selectedFlow {
      return handleFlowKey(key, flow.name)
    }
    switch key {
    case .enter, .char("s"), .char("r"):
      return sendSelected()
    case .char("S"):
      return sendSelected(ignoringCache: true)
    case .char("c"):
      guard let name = selectedRequest?.name else { return [] }
      let running = exchanges.filter { $0.name == name && !$0.state.isTerminal }
      if running.isEmpty { message = StatusMessage("\(name) has nothing running") }
      return running.map { .cancel($0.id) }
    case .char("/"):
      prompt = Prompt(purpose: .filterRequests, label: "filter requests", input: LineEdit(requestFilter, selected: true))
      return []
    case .escape:
      if !requestFilter.isEmpty { clearRequestFilter() }
      return []
    case .char("E"):
      return editBody()
    case .char("e"):
      focus = .editor
      return []
    default:
      return []
    }
  }

  /// Keys on a selected batch or chain: Enter runs it, `c` cancels its runs, `r` resumes a chain
  /// that failed or was cancelled (from the failed step, with the values captured so far).
  private mutating func handleFlowKey(_ key: Key, _ name: String) -> [Command] {
    switch key {
    case .enter, .char("s"):
      message = StatusMessage("running \(name)")
      return [.runFlow(name: name, fromStep: 1, captured: [:])]
    case .char("c"):
      let running = flows.filter { $0.name == name && !$0.state.isTerminal }
      if running.isEmpty { message = StatusMessage("\(name) is not running") }
      return running.map { .cancelFlow(run: $0.run) }
    case .char("r"):
      return resume(flows.first(where: { $0.name == name }), name)
    case .char("/"):
      prompt = Prompt(purpose: .filterRequests, label: "filter requests", input: LineEdit(requestFilter, selected: true))
      return []
    default:
      return []
    }
  }

  mutating func selectRequest(_ index: Int) {
    requestSelection = index
    let height = layout.contentHeight(of: .requests)
    // Keep the selected row (folders add rows above it) in view.
    let selectedFlowName = selectedFlow?.name
    let row = listRows.firstIndex { row in
      switch row {
      case .request(let name, _): return name == selectedRequest?.name
      case .flow(let name, _): return name == selectedFlowName
      default: return false
      }
    } ?? 0
    if row < requestScroll { requestScroll = row }
    if row >= requestScroll + height { requestScroll = row - height + 1 }
    editorField = min(editorField, max(0, (selectedRequest?.editorFields.count ?? 1) - 1))
  }

  mutating func sendSelected(ignoringCache: Bool = false) -> [Command] {
    guard let prepared = preparedSelection() else {
      message = StatusMessage("no request selected; add requests to \(workspaceFile)", isError: true)
      return []
    }
    switch prepared {
    case .success(var request):
      following = request.name
      historyWanted = nil
      if ignoringCache, request.cache != nil {
        request.cache?.mode = .networkOnly  // the network, and the cached response refreshed
        message = StatusMessage("sent \(request.name), ignoring the cache")
      } else {
        message = StatusMessage("sent \(request.name)")
      }
      return [.send(request)]
    case .failure(let error):
      message = StatusMessage(error.description, isError: true)
      return []
    }
  }

  private mutating func editBody() -> [Command] {
    guard let template = selectedRequest else { return [] }
    let (text, ext) = template.bodyEditorText
    return [.edit(text: text, fileExtension: ext)]
  }

  // MARK: Editor pane

  private mutating func handleEditorKey(_ key: Key) -> [Command] {
    guard let template = selectedRequest else { return [] }
    let fields = template.editorFields
    if let index = move(key, editorField, count: fields.count, page: layout.contentHeight(of: .editor)) {
      editorField = index
      let height = layout.contentHeight(of: .editor) - 1
      if editorField < editorScroll { editorScroll = editorField }
      if editorField >= editorScroll + height { editorScroll = editorField - height + 1 }
      return []
    }
    switch key {
    case .char("S"):
      return sendSelected(ignoringCache: true)
    case .char("e"), .enter:
      guard fields.indices.contains(editorField) else { return [] }
      let field = fields[editorField]
      if field.editable {
        editing = LineEdit(field.value)
        return []
      }
      return editBody()
    case .char("E"):
      return editBody()
    case .char("s"):
      return sendSelected()
    default:
      return []
    }
  }

  private mutating func handleEditing(_ key: Key) -> [Command] {
    guard var edit = editing, let template = selectedRequest else {
      editing = nil
      return []
    }
    switch key {
    case .escape:
      editing = nil
      message = StatusMessage("edit cancelled")
    case .enter:
      let fields = template.editorFields
      guard fields.indices.contains(editorField) else {
        editing = nil
        return []
      }
      do {
        replace(template, with: try template.applying(edit.text, to: fields[editorField].kind))
        editing = nil
        message = StatusMessage("changed \(fields[editorField].label.lowercased()); Ctrl-S saves")
      } catch {
        message = StatusMessage(error.message + " (Esc cancels)", isError: true)
      }
    default:
      if edit.apply(key) { editing = edit }
    }
    return []
  }

  /// Puts an edited template in place of the old one and marks it unsaved.
  mutating func replace(_ old: RequestTemplate, with new: RequestTemplate) {
    guard let index = workspace.requests.firstIndex(where: { $0.name == old.name }) else { return }
    workspace.requests[index] = new
    unsaved.insert(new.name)
  }

  // MARK: Response pane

  private mutating func handleResponseKey(_ key: Key) -> [Command] {
    let page = layout.contentHeight(of: .response)
    let document = viewer.filtered ?? viewer.document
    switch key {
    case .down, .char("j"): scrollViewer(by: 1)
    case .up, .char("k"): scrollViewer(by: -1)
    case .pageDown, .ctrl("d"), .char(" "): scrollViewer(by: max(1, page - 1))
    case .pageUp, .ctrl("u"): scrollViewer(by: -max(1, page - 1))
    case .home, .char("g"): viewer.scroll = 0
    case .end, .char("G"):
      if viewer.tab == .body, let document { viewer.scroll = max(0, document.totalLineCount() - page) }
    case .left, .char("h"):
      viewer.tab = ViewerState.Tab(rawValue: (viewer.tab.rawValue + 2) % 3) ?? .body
      viewer.scroll = 0
    case .right, .char("l"):
      viewer.tab = ViewerState.Tab(rawValue: (viewer.tab.rawValue + 1) % 3) ?? .body
      viewer.scroll = 0
    case .char("W"):
      viewer.wrap.toggle()
      message = StatusMessage(viewer.wrap ? "wrapping long lines" : "not wrapping")
    case .char("/"):
      prompt = Prompt(purpose: .search, label: "search", input: LineEdit(viewer.search ?? "", selected: true))
    case .char("n"), .char("N"):
      return findNext(forward: key == .char("n"))
    case .char("|"):
      guard shownExchange?.result?.response != nil else {
        message = StatusMessage("no response to filter yet", isError: true)
        return []
      }
      prompt = Prompt(purpose: .filterBody, label: "jq", input: LineEdit(viewer.filter ?? ".", selected: true))
    case .escape:
      if let cursor = viewer.searching {
        viewer.searching = nil
        message = StatusMessage("/\(cursor.query): search stopped")
      } else if let expression = viewer.filterRunning {
        viewer.filterRunning = nil  // its result will be ignored
        message = StatusMessage("jq \(expression): cancelled")
      } else if viewer.filter != nil {
        viewer.filter = nil
        viewer.filtered = nil
        viewer.filteredText = nil
        viewer.scroll = 0
      } else if viewer.history != nil {
        leaveHistory()
      }
    case .char("["):
      guard let name = viewer.history?.entry.name ?? shownExchange?.name ?? selectedRequest?.name else {
        return []
      }
      return requestHistory(name, position: viewer.history.map { $0.position + 1 } ?? 0)
    case .char("]"):
      guard let history = viewer.history else { return [] }
      if history.position == 0 {
        leaveHistory()
        return []
      }
      return requestHistory(history.entry.name, position: history.position - 1)
    case .char("w"):
      guard let row = shownExchange, row.result?.response != nil else {
        message = StatusMessage("no response body to write yet", isError: true)
        return []
      }
      let name = row.name.replacingOccurrences(of: "/", with: "-")
      if viewer.filter != nil, viewer.filteredText != nil {
        // The jq output shown is what gets written.
        prompt = Prompt(purpose: .writeBody, label: "write jq output to", input: LineEdit("\(name).jq.txt"))
      } else {
        let ext = viewer.document?.kind == .json ? "json" : "txt"
        prompt = Prompt(purpose: .writeBody, label: "write body to", input: LineEdit("\(name).\(ext)"))
      }
    case .char("s"), .char("r"):
      if let history = viewer.history {
        return resend(history)
      }
      return resend(shownExchange)
    default:
      break
    }
    return []
  }

  /// Scrolls the viewer by `delta` lines, never past the end of what it shows. A lazy body is
  /// indexed only as far as the new position needs: while its end is unknown the scroll stops at
  /// the last line indexed, once known it stops where the last page shows the last line.
  mutating func scrollViewer(by delta: Int) {
    let page = layout.contentHeight(of: .response)
    let target = max(0, viewer.scroll + delta)
    let last: Int
    if let run = shownFlowRun {
      // A batch or chain run: its lines below the title.
      last = flowRunLines(run.name, run).count - page
      viewer.scroll = max(0, min(target, last))
      return
    }
    switch viewer.tab {
    case .body:
      guard let document = viewer.filtered ?? viewer.document else {
        viewer.scroll = 0
        return
      }
      let (count, exact) = document.lineCount(atLeast: target + page)
      last = exact ? count - page : count - 1
    case .headers:
      let response = viewer.history?.result.response ?? shownExchange?.result?.response
      last = (response?.headers.fields.count ?? 0) - page
    case .timing:
      last = 0
    }
    viewer.scroll = min(target, max(0, last))
  }

  /// Asks for a history entry; only the answer to the latest ask is shown.
  mutating func requestHistory(_ name: String, position: Int) -> [Command] {
    historyWanted = HistoryRequest(name: name, position: position)
    return [.showHistory(name: name, position: position)]
  }

  private mutating func leaveHistory() {
    historyWanted = nil
    viewer.history = nil
    viewer.document = nil
    if let id = viewer.exchange {
      viewer.exchange = nil
      show(id)
    }
    message = StatusMessage("back to the live response")
  }

  /// Lines a search looks at per slice: a few milliseconds, so keys and frames go on meanwhile.
  public static let searchSlice = 20_000

  private mutating func findNext(forward: Bool) -> [Command] {
    guard let query = viewer.search, !query.isEmpty, viewer.filtered ?? viewer.document != nil else {
      message = StatusMessage("press / to search")
      return []
    }
    let from = viewer.matchLine ?? (forward ? viewer.scroll - 1 : viewer.scroll)
    viewer.searching = BodyDocument.SearchCursor(query: query, from: from, forward: forward)
    return continueSearch()
  }

  /// The next slice of the search in progress.
  mutating func continueSearch() -> [Command] {
    guard let cursor = viewer.searching, let document = viewer.filtered ?? viewer.document else {
      viewer.searching = nil
      return []
    }
    switch document.search(cursor, budget: AppState.searchSlice) {
    case .found(let line):
      viewer.searching = nil
      viewer.matchLine = line
      let page = layout.contentHeight(of: .response)
      if line < viewer.scroll || line >= viewer.scroll + page { viewer.scroll = max(0, line - page / 3) }
      // Which match of how many, when the body is small enough to count them in one slice
      // (a big body's count would be a pass of its own: the line only).
      if let (index, total) = document.matchPosition(of: cursor.query, at: line, limit: AppState.searchSlice) {
        message = StatusMessage("/\(cursor.query): match \(index) of \(total), line \(line + 1)")
      } else {
        message = StatusMessage("/\(cursor.query): line \(line + 1)")
      }
    case .notFound:
      viewer.searching = nil
      viewer.matchLine = nil
      message = StatusMessage("/\(cursor.query): not found", isError: true)
    case .more(let next, let fraction):
      viewer.searching = next
      message = StatusMessage("/\(cursor.query): searching… \(Int(fraction * 100))% (Esc stops)")
      return [.continueSearch]
    }
    return []
  }

  // MARK: Queue pane

  private mutating func handleQueueKey(_ key: Key) -> [Command] {
    // One list: the batch and chain section, then the exchanges.
    let items = queueFlowItems
    let current = queueFlowSelection.flatMap { items.firstIndex(of: $0) } ?? (items.count + queueSelection)
    if let index = move(key, current, count: items.count + exchanges.count, page: layout.contentHeight(of: .queue)) {
      if index < items.count {
        selectQueueFlow(items[index])
      } else {
        selectQueueRow(index - items.count)
      }
      return []
    }
    if let item = queueFlowSelection { return handleQueueFlowKey(key, item) }
    queueHint(key)
    guard let row = selectedExchange else { return [] }
    switch key {
    case .char("c"):
      guard !row.state.isTerminal else {
        message = StatusMessage("\(row.name) already \(row.state.rawValue)")
        return []
      }
      return [.cancel(row.id)]
    case .char("r"), .char("s"):
      return resend(row)
    case .enter:
      show(row.id)
      focus = .response
      return []
    default:
      return []
    }
  }

  /// Keys of the other panes pressed in the queue: say where they work.
  private mutating func queueHint(_ key: Key) {
    if key == .char("/") {
      message = StatusMessage("/ filters the request list (1) and searches the response (3); the queue has no filter")
    }
  }

  /// Selects an exchange row, scrolls the queue to keep it in view and shows it in the viewer.
  /// Clears the request filter keeping the selected request (or batch or chain) selected, in
  /// view, in the whole list.
  mutating func clearRequestFilter() {
    let request = selectedRequest?.name
    let flow = selectedFlow?.name
    requestFilter = ""
    if let request, let index = visibleRequests.firstIndex(where: { $0.name == request }) {
      selectRequest(index)
    } else if let flow, let index = visibleFlows.firstIndex(where: { $0.name == flow }) {
      selectRequest(visibleRequests.count + index)
    } else {
      selectRequest(0)
    }
  }

  /// After a resize: the selected request and queue row scrolled back into view.
  mutating func keepSelectionsInView() {
    guard !layout.tooSmall else { return }
    selectRequest(requestSelection)
    let height = max(1, queueExchangeLines)
    if queueSelection < queueScroll { queueScroll = queueSelection }
    if queueSelection >= queueScroll + height { queueScroll = queueSelection - height + 1 }
  }

  mutating func selectQueueRow(_ index: Int) {
    guard exchanges.indices.contains(index) else { return }
    queueFlowSelection = nil
    queueSelection = index
    let height = queueExchangeLines
    if queueSelection < queueScroll { queueScroll = queueSelection }
    if queueSelection >= queueScroll + height { queueScroll = queueSelection - height + 1 }
    show(exchanges[index].id)
  }

  /// Sends the request of an exchange again (as it is in the workspace now).
  private mutating func resend(_ row: ExchangeRow?) -> [Command] {
    guard let row else { return [] }
    let commands = resend(named: row.name)
    if !commands.isEmpty, let download = row.result?.download, download.resumable {
      let resuming = StatusMessage(
        "resuming \(row.name) from \(Formatting.bytes(Int(download.bytes)))"
          + (download.percent.map { " (\(Int($0))%)" } ?? ""))
      message = resuming
      awaiting = .exchange(name: row.name, message: resuming)
    }
    return commands
  }

  /// Downloads an earlier session left unfinished (the agent's resume state): listed in the
  /// queue as cancelled and resumable, oldest last; `r` resumes one. Only those whose request is
  /// still in the workspace.
  public mutating func restorePendingDownloads(_ pending: [PendingDownload]) {
    for (i, download) in pending.enumerated() where workspace.request(named: download.label) != nil {
      // Ids from the top of the range: the agent counts up from 1.
      let id = ExchangeID(rawValue: UInt64.max - UInt64(i))
      let method = HTTPMethod(rawValue: download.method) ?? .GET
      let outcome = DownloadOutcome(
        file: download.target, bytes: download.bytesOnDisk, totalBytes: download.totalBytes, resumedFrom: 0,
        restartReason: nil, resumable: true, complete: false)
      var row = ExchangeRow(id: id, name: download.label, method: method, url: download.url, state: .cancelled)
      row.downloadTarget = download.target
      row.result = ExchangeResult(
        id: id, request: Request(name: download.label, method: method, url: download.url), state: .cancelled,
        response: nil, error: ExchangeError(kind: .cancelled, message: "interrupted in an earlier session"),
        attempts: 0, queuedAt: download.updated, startedAt: nil, finishedAt: download.updated, download: outcome)
      exchanges.append(row)
    }
  }

  /// Sends a request from history again as it was recorded (method, URL, headers, body), with
  /// the workspace request's other settings (timeouts, validation, TLS…) when it still exists.
  /// A recording holds secrets masked (`••••`): then the workspace's request is sent instead.
  private mutating func resend(_ history: HistoryView) -> [Command] {
    let entry = history.entry
    let mask = Redaction.mask
    let masked =
      entry.url.contains(mask) || entry.requestHeaders.fields.contains { $0.value.contains(mask) }
      || String(decoding: history.requestBody, as: UTF8.self).contains(mask)
    if masked {
      let commands = resend(named: entry.name)
      if !commands.isEmpty {
        message = StatusMessage("the recorded request has masked secrets: sent \(entry.name) as the workspace has it")
      }
      return commands
    }
    var request: Request
    if let template = workspace.request(named: entry.name), let prepared = try? workspace.prepare(template, sources: sources) {
      request = prepared
    } else {
      request = Request(name: entry.name, url: entry.url)
    }
    request.method = entry.method
    request.url = entry.url
    request.headers = entry.requestHeaders
    request.body =
      history.requestBody.isEmpty && entry.requestContentType == nil
      ? .empty : RequestBody(bytes: history.requestBody, contentType: entry.requestContentType)
    request.download = nil
    following = request.name
    historyWanted = nil
    message = StatusMessage("sent \(entry.name) as recorded \(Painter.dateText(entry.date))")
    return [.send(request)]
  }

  private mutating func resend(named name: String) -> [Command] {
    guard let template = workspace.request(named: name) else {
      message = StatusMessage("\(name) is no longer in the workspace", isError: true)
      return []
    }
    do {
      let request = try workspace.prepare(template, sources: sources)
      following = request.name
      historyWanted = nil  // the new exchange takes the viewer, not a history entry on its way
      message = StatusMessage("sent \(request.name) again")
      return [.send(request)]
    } catch {
      message = StatusMessage(error.description, isError: true)
      return []
    }
  }

  // MARK: - Prompts

  private mutating func handlePrompt(_ key: Key) -> [Command] {
    guard var current = prompt else { return [] }
    switch key {
    case .escape:
      prompt = nil
      if current.purpose == .filterRequests { clearRequestFilter() }
      return []
    case .enter:
      prompt = nil
      let text = current.input.text
      switch current.purpose {
      case .filterRequests:
        requestFilter = text
        requestSelection = 0
        requestScroll = 0
      case .search:
        viewer.search = text.isEmpty ? nil : text
        viewer.matchLine = nil
        return findNext(forward: true)
      case .filterBody:
        guard let id = viewer.exchange, !text.isEmpty else { return [] }
        viewer.filterRunning = text
        message = StatusMessage("jq: running… (Esc cancels)")
        return [.filter(expression: text, id)]
      case .writeBody:
        guard let id = viewer.exchange, !text.isEmpty else { return [] }
        let command = Command.writeBody(id, path: text, jqOutput: viewer.filter == nil ? nil : viewer.filteredText)
        pendingWrite = command
        return [command]
      }
      return []
    default:
      if current.input.apply(key) {
        prompt = current
        if current.purpose == .filterRequests {
          requestFilter = current.input.text  // filter as you type
          requestSelection = 0
          requestScroll = 0
        }
      }
      return []
    }
  }

  // MARK: - Mouse

  mutating func handle(_ event: MouseEvent) -> [Command] {
    guard !layout.tooSmall, overlay == nil, prompt == nil, editing == nil, let pane = layout.pane(at: event.x, event.y) else { return [] }
    let rect = layout.rect(of: pane)
    switch event.kind {
    case .wheelUp, .wheelDown:
      let delta = event.kind == .wheelDown ? 3 : -3
      switch pane {
      case .response: scrollViewer(by: delta)
      case .requests:
        selectRequest(min(max(0, requestSelection + delta), max(0, selectableCount - 1)))
      case .queue:
        if !exchanges.isEmpty { selectQueueRow(min(max(0, queueSelection + delta), exchanges.count - 1)) }
      case .editor:
        // The fields under the resolved URL line: the last one stays on screen.
        let fields = selectedRequest?.editorFields.count ?? 0
        let rows = max(1, layout.contentHeight(of: .editor) - 1)
        editorScroll = min(max(0, editorScroll + delta), max(0, fields - rows))
      }
    case .press:
      focus = pane
      let row = event.y - rect.y - 1
      switch pane {
      case .requests:
        let rows = listRows
        let index = requestScroll + row
        if rows.indices.contains(index), case .request(let name, _) = rows[index],
          let position = visibleRequests.firstIndex(where: { $0.name == name })
        {
          selectRequest(position)
        } else if rows.indices.contains(index), case .flow(let name, _) = rows[index],
          let position = visibleFlows.firstIndex(where: { $0.name == name })
        {
          selectRequest(visibleRequests.count + position)
        }
      case .queue:
        let section = queueFlowLines
        let window = Array(queueFlowWindow)
        // The column header is the pane's first line, above the section.
        if row >= 1, row - 1 < section, window.indices.contains(row - 1) {
          selectQueueFlow(window[row - 1])
        } else if row >= 1 + section {
          let index = queueScroll + row - section - 1
          if exchanges.indices.contains(index) {
            queueFlowSelection = nil
            queueSelection = index
            show(exchanges[index].id)
          }
        }
      case .editor:
        let index = editorScroll + row - 1  // the resolved URL line
        if let count = selectedRequest?.editorFields.count, index >= 0, index < count { editorField = index }
      case .response:
        break
      }
    }
    return []
  }

  var layout: Layout { Layout(width: width, height: height) }

  mutating func clampSelections() {
    requestSelection = min(requestSelection, max(0, selectableCount - 1))
    queueSelection = min(queueSelection, max(0, exchanges.count - 1))
    if let item = queueFlowSelection, !queueFlowItems.contains(item) {
      queueFlowSelection = flows.contains { $0.run == item.run } ? .flow(run: item.run) : nil
    }
  }
}
