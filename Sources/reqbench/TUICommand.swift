import Base
import CommandLineSupport
import DemoServer
import Flows
import Foundation
import History
import RequestEngine
import Sessions
import Synchronization
import TerminalUI
import Workbench
import Workspace

/// `reqbench [WORKSPACE]` and `reqbench --demo`: the four-pane TUI.
///
/// One UI thread: `poll` on the terminal and a wake pipe; the agent's events and the results of
/// background work arrive through a locked inbox plus one byte on the pipe. The screen is redrawn
/// at most 30 times a second and only after something changed; with nothing running the process
/// sleeps in `poll` (no timer).
final class TUIRuntime {
  private let inbox: MessageInbox
  private var state: AppState
  /// The workspace file: saves go through it, refusing to write over another program's change.
  private var file: WorkspaceFile
  private var workspaceURL: URL { file.url }
  private let stateFolder: URL
  private let agent: Agent
  private let history: HistoryStore
  private let backend: CursesBackend
  private var flowRuns: [String: FlowRunner.Run] = [:]
  /// The interactive OAuth 2.0 grants under way (the box asks the user).
  private let authorizations: TUIAuthorizations
  /// The workspace's cookie jars (nil with `--no-cookies`): the ones `state.sources` hands to sends.
  private let cookieJars: CookieJars?
  /// Says when the workspace file may have changed on disk (nil: not watched).
  private var watcher: FileWatcher?
  private var flowCount = 0
  private var buffer: ScreenBuffer
  private var dirty = true
  private var lastFrame = 0.0
  private var lastTick = 0.0
  private var quitting = false
  private let background = WorkerThread(name: "rb-tui-work")
  /// The jq program running over a stream's events, compiled once for all its runs.
  private let eventsPrograms = JQProgramCache()
  private static let frameInterval = 1.0 / 30
  private static let tickInterval = 0.25

  init(
    state: AppState, file: WorkspaceFile, stateFolder: URL, agent: Agent, history: HistoryStore, backend: CursesBackend,
    inbox: MessageInbox, tokens: OAuth2Tokens, cookies: Bool
  ) {
    self.inbox = inbox
    self.state = state
    self.file = file
    self.stateFolder = stateFolder
    self.agent = agent
    self.history = history
    self.backend = backend
    let (width, height) = backend.size
    self.state.width = width
    self.state.height = height
    self.state.colors = backend.colors
    self.buffer = ScreenBuffer(width: width, height: height)
    // The interactive grants ask in the TUI (`AuthorizationOverlay.swift`), not on stderr.
    let authorizations = TUIAuthorizations(inbox: inbox)
    self.authorizations = authorizations
    tokens.interactive = { client, send, done in authorizations.run(client, send: send, done: done) }
    self.state.sources.oauth2 = tokens
    // The cookie jars sends use (`prepare` attaches the environment's; none with `--no-cookies`);
    // a jar that cannot be read or written is said once in the status bar.
    let inbox = self.inbox
    cookieJars =
      cookies
      ? CookieJars(stateFolder: stateFolder) { error in inbox.post(.cookieJarFailed("not kept: \(error.description)")) }
      : nil
    self.state.sources.cookies = cookieJars
  }

  func run() -> Int32 {
    let inbox = self.inbox
    let history = self.history
    // A pass of the engine's events at once: what one pass says of an exchange (a dedup
    // waiter's queued and joined, its primary's headers) reaches the screen in the same frame.
    agent.subscribeBatches { events in
      inbox.post(events.map(Msg.agent))
      for case .finished(let result) in events {
        history.recordInBackground(result, name: result.request.name) { error in
          inbox.post(.historyShown(nil, error: "not recorded: \(error.description)"))
        }
      }
    }
    startWatching()
    render()
    var fds = [
      pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
      pollfd(fd: inbox.readFD, events: Int16(POLLIN), revents: 0),
      pollfd(fd: watcher?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
    ]
    while !quitting {
      let now = MonotonicClock.now()
      var timeout: Int32 = -1
      if dirty {
        timeout = Int32(max(0, (lastFrame + TUIRuntime.frameInterval - now) * 1000))
      } else if state.isBusy {
        timeout = Int32(max(0, (lastTick + TUIRuntime.tickInterval - now) * 1000))
      }
      for index in fds.indices { fds[index].revents = 0 }
      fds[2].fd = watcher?.fileDescriptor ?? -1
      let ready = poll(&fds, nfds_t(fds.count), timeout)
      if ready < 0 {
        guard errno == EINTR else { break }
        // A signal: SIGWINCH makes ncurses queue KEY_RESIZE, which only a read delivers.
        for msg in backend.readInput() { apply(msg) }
      }
      if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
        if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 && fds[0].revents & Int16(POLLIN) == 0 {
          break  // the terminal went away
        }
        for msg in backend.readInput() { apply(msg) }
      }
      if fds[1].revents & Int16(POLLIN) != 0 {
        let batch = inbox.takeAll()
        // The clock first, so exchanges that start in this batch get their start time.
        if !batch.isEmpty { apply(.tick(Date())) }
        for msg in batch { apply(msg) }
        // SIGTERM, SIGHUP, SIGINT (`Signals`): leave at once, cancelling transfers.
        if inbox.terminationRequested { quitting = true }
      }
      if fds[2].revents & Int16(POLLIN) != 0, watcher?.drain() == true {
        fileMayHaveChanged()
      }
      let after = MonotonicClock.now()
      if state.isBusy && after - lastTick >= TUIRuntime.tickInterval {
        lastTick = after
        apply(.tick(Date()))
      }
      if dirty && after - lastFrame >= TUIRuntime.frameInterval { render() }
    }
    authorizations.cancelAll()
    agent.shutdown()
    cookieJars?.flush()
    history.waitForBackgroundRecords()
    backend.stop()
    return ExitStatus.success
  }

  /// Reads (after changing) the jar of `environment` on the background queue, with what other
  /// processes wrote to its file taken in first; what it holds comes back as `cookiesLoaded`.
  private func cookieJob(_ environment: String?, _ change: @escaping @Sendable (CookieJarFile) -> Void) {
    guard let jars = cookieJars else {
      apply(.cookiesLoaded(environment: environment, []))
      return
    }
    let inbox = self.inbox
    let jarEnvironment = state.sources.cookieJarEnvironment(of: environment)
    background.async {
      let file = jars.file(environment: jarEnvironment)
      file.takeOtherWrites()
      change(file)
      let now = Date()
      inbox.post(.cookiesLoaded(environment: environment, file.jar.cookies.filter { !$0.isExpired(at: now) }))
    }
  }

  private func apply(_ msg: Msg) {
    let commands = update(&state, msg)
    dirty = true
    // A run that ended needs no handle any more (resuming a chain uses its outcome in the state).
    if case .flow(let run, .finished) = msg, state.flows.first(where: { $0.run == run })?.state.isTerminal == true {
      flowRuns[run] = nil
    }
    for command in commands { perform(command) }
  }

  private func render() {
    if buffer.width != state.width || buffer.height != state.height {
      buffer = ScreenBuffer(width: state.width, height: state.height)
    }
    view(state, into: &buffer)
    backend.draw(buffer)
    dirty = false
    lastFrame = MonotonicClock.now()
  }

  private func perform(_ command: Command) {
    let inbox = self.inbox
    switch command {
    case .send(let request):
      // A `reqbench cookies rm` or a `run` in another terminal since: sent as the file says now.
      if request.cookieJar != nil { cookieJars?.takeOtherWrites() }
      agent.send(request)
    case .cancel(let id):
      agent.cancel(id)
    case .pause(let id):
      agent.pause(id)
    case .resume(let id):
      agent.resume(id)
    case .cancelAll:
      agent.cancelAll()
    case .quit:
      quitting = true
    case .save, .saveOverwriting:
      let creating = file.isNew
      do {
        try file.save(state.workspace, overwrite: command == .saveOverwriting)
        // Renamed environments are renamed in the file now: their cookie jars follow.
        cookieJars?.renameJars(state.sources.renamedEnvironments)
        // A new workspace's first save makes its state folder too (history, cache, downloads).
        if creating { try? StateFolder.make(stateFolder) }
        apply(.saved(error: nil))
        if watcher == nil { startWatching() }
      } catch WorkspaceSaveError.changedOnDisk {
        apply(.disk(.saveRefused))
      } catch {
        apply(.saved(error: error.description))
      }
    case .reload:
      reloadFromDisk(dropping: true)
    case .mergeWithDisk:
      do {
        apply(.disk(.merged(try file.merge(state.workspace))))
      } catch {
        apply(.disk(.mergeFailed(error.description)))
      }
    case .edit(let text, let fileExtension):
      apply(editInEditor(text, fileExtension: fileExtension))
    case .writeBody(let id, let path, let jqOutput, let events, let overwrite):
      let row = state.exchanges.first(where: { $0.id == id })
      let body = row?.result?.response?.body
      // The stream's events kept, as `run --json` prints them (made on the background queue).
      let stream = events ? row?.stream : nil
      let name = row?.name ?? ""
      guard jqOutput != nil || body != nil || stream != nil else { return }
      let url = URL(fileURLWithPath: path, relativeTo: workspaceURL.deletingLastPathComponent())
      background.async {
        if !overwrite, FileManager.default.fileExists(atPath: url.path) {
          inbox.post(.bodyFileExists(path: url.path))
          return
        }
        // The folders of the path are made, as a download's are, and the message says so.
        let folder = url.deletingLastPathComponent()
        var madeFolder: String?
        if !FileManager.default.fileExists(atPath: folder.path) {
          do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            madeFolder = folder.path
          } catch {
            inbox.post(.bodyWritten(path: url.path, error: "cannot make the folder \(folder.path)"))
            return
          }
        }
        do {
          let bytes = try stream.map { StreamEvent.ndjson($0.kept, name: name, exchange: id) }
            ?? jqOutput.map { Array($0.utf8) } ?? body?.bytes() ?? []
          try AtomicFile.write(bytes, to: url)
          inbox.post(.bodyWritten(path: url.path, error: nil, madeFolder: madeFolder))
        } catch let error as FileError {
          // The system's reason alone: the message names the path already.
          inbox.post(.bodyWritten(path: url.path, error: error.reason.isEmpty ? error.message : error.reason))
        } catch {
          inbox.post(.bodyWritten(path: url.path, error: "\(error)"))
        }
      }
    case .runFlow(let name, let fromStep, let captured):
      cookieJars?.takeOtherWrites()
      flowCount += 1
      let token = "ui-\(flowCount)"
      let kind: FlowOutcome.Kind = state.workspace.batch(named: name) != nil ? .batch : .chain
      apply(.flowStarted(run: token, name: name, kind: kind, fromStep: fromStep))
      // The workspace as it is now (edits included), so a run uses the requests as shown.
      let runner = FlowRunner(agent: agent, workspace: state.workspace, sources: state.sources)
      // The run is named by its token: its exchanges' `flow` tag ties them to its queue row.
      flowRuns[token] = runner.start(
        name, id: token, fromStep: fromStep, captured: captured.map { ($0.key, $0.value) },
        events: { inbox.post(.flow(run: token, $0)) }, completion: { _ in })
    case .cancelFlow(let run):
      flowRuns[run]?.cancel()
    case .setSecret(let name, let value):
      // On this thread: a small file, and the next frame shows the outcome.
      do {
        var secrets = try SecretsFile.load(forWorkspace: workspaceURL)
        secrets.set(name, value)
        try secrets.save()
        apply(.secretSaved(name: name, secrets: secrets, error: nil))
      } catch let error as WorkspaceError {
        apply(.secretSaved(name: name, secrets: nil, error: error.description))
      } catch let error as FileError {
        apply(.secretSaved(name: name, secrets: nil, error: error.description))
      } catch {
        apply(.secretSaved(name: name, secrets: nil, error: "\(error)"))
      }
    case .loadCookies(let environment):
      cookieJob(environment) { _ in }
    case .removeCookie(let environment, let cookie):
      cookieJob(environment) { file in file.remove { $0.key == cookie.key } }
    case .clearCookies(let environment):
      cookieJob(environment) { $0.clear() }
    case .copy(let text):
      backend.copyToClipboard(text)
    case .openInBrowser(let id, let url):
      // Off this thread: starting a process takes a while.
      background.async { inbox.post(.authorization(.browser(id: id, Browser.open(url)))) }
    case .cancelAuthorization(let id):
      authorizations.cancel(id)
    case .continueSearch:
      // Through the inbox: keys, agent events and a frame get their turn between two slices.
      inbox.post(.searchContinue)
    case .showHistory(let name, let position):
      let history = self.history
      background.async { inbox.post(HistoryStep.shown(history, name: name, position: position)) }
    case .searchHistory(let query, let id):
      let history = self.history
      background.async {
        do throws(FileError) {
          inbox.post(.historyFound(id: id, try history.entries(matching: query), error: nil))
        } catch {
          inbox.post(.historyFound(id: id, HistoryResults(), error: error.description))
        }
      }
    case .loadHistoryEntry(let entry):
      let history = self.history
      background.async {
        do throws(FileError) {
          let position = try history.position(of: entry)
          inbox.post(HistoryStep.shown(history, name: entry.name, position: position))
        } catch {
          inbox.post(.historyShown(nil, error: error.description))
        }
      }
    case .filter(let expression, let id, let events?):
      // jq over each of these events' data, compiled once (`JQ.runEach`).
      let kept = state.exchanges.first(where: { $0.id == id })?.stream?.kept.filter { events.contains($0.index) } ?? []
      let programs = eventsPrograms
      background.async {
        do throws(JQ.Failure) {
          let results = try programs.program(expression).runEach(kept.map(\.data))
          var outputs: [Int: Result<String, FilterError>] = [:]
          for (event, result) in zip(kept, results) {
            outputs[event.index] = result.mapError { FilterError($0.message) }
          }
          inbox.post(.eventsFiltered(expression: expression, result: .success(EventsFiltered(events: events, outputs: outputs))))
        } catch {
          inbox.post(.eventsFiltered(expression: expression, result: .failure(FilterError(error.message))))
        }
      }
    case .previewCapture(let capture, let key):
      // As a run of the chain captures (`FlowRunner.capture`): jq over the body, a header, the status.
      guard let result = state.exchanges.first(where: { $0.id == key.exchange })?.result else {
        inbox.post(.capturePreviewed(key, .failed("the response is gone")))
        return
      }
      background.async {
        switch FlowRunner.capture([(name: "preview", source: capture)], from: result) {
        case .success(let values): inbox.post(.capturePreviewed(key, .value(values.first?.1 ?? "")))
        case .failure(let failure): inbox.post(.capturePreviewed(key, .failed(failure.reason)))
        }
      }
    case .filter(let expression, let id, nil):
      guard let body = state.exchanges.first(where: { $0.id == id })?.result?.response?.body else { return }
      background.async {
        do {
          let output = try JQ.run(expression, input: try body.bytes())
          inbox.post(.filtered(expression: expression, result: .success(output)))
        } catch let error as JQ.Failure {
          inbox.post(.filtered(expression: expression, result: .failure(FilterError(error.message))))
        } catch {
          inbox.post(.filtered(expression: expression, result: .failure(FilterError("\(error)"))))
        }
      }
    }
  }

  /// Watches the workspace file's folder with inotify, in the same poll as the keys: a `git
  /// pull` or an editor's save is seen at once, and an idle app still sleeps. A new workspace in
  /// a folder that does not exist yet is watched once its first save made the folder.
  private func startWatching() {
    let url = file.url.absoluteURL
    guard FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path) else { return }
    do {
      watcher = try FileWatcher(watching: url)
    } catch {
      state.message = StatusMessage("not watching \(state.workspaceFile) for changes: \(error.message)", isError: true)
    }
  }

  /// The watcher saw the file's folder change: what that means for the file (`checkDisk`), and
  /// the workspace read again when nothing here is unsaved.
  private func fileMayHaveChanged() {
    switch file.checkDisk(hasUnsavedEdits: state.hasEditsInProgress) {
    case .unchanged: if state.disk != nil { apply(.disk(.asLoaded)) }
    case .reload: reloadFromDisk(dropping: false)
    case .conflict: apply(.disk(.conflict))
    case .deleted: apply(.disk(.deleted))
    }
  }

  private func reloadFromDisk(dropping: Bool) {
    do {
      let workspace = try file.load()
      apply(.disk(.reloaded(workspace, dropped: dropping)))
    } catch {
      apply(.disk(.unreadable(error.description)))
    }
  }

  /// The editor `E` runs: `$VISUAL`, else `$EDITOR`, else the system's default editor
  /// (`/usr/bin/editor`, Debian's alternative, as Debian policy §11.4 asks), else `vi`.
  static func editor(environment: [String: String], isExecutable: (String) -> Bool) -> String {
    environment["VISUAL"].flatMap { $0.isEmpty ? nil : $0 }
      ?? environment["EDITOR"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (isExecutable(systemEditor) ? systemEditor : "vi")
  }

  static let systemEditor = "/usr/bin/editor"

  /// Runs the editor (`editor(environment:isExecutable:)`) on a temporary file holding `text`.
  private func editInEditor(_ text: String, fileExtension: String) -> Msg {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("reqbench-body-\(UUID().uuidString.prefix(8)).\(fileExtension)")
    do {
      try Data(text.utf8).write(to: file)
    } catch {
      return .editorFinished(nil, error: "cannot write \(file.path): \(error.localizedDescription)")
    }
    defer { try? FileManager.default.removeItem(at: file) }
    let editor = Self.editor(
      environment: ProcessInfo.processInfo.environment, isExecutable: { FileManager.default.isExecutableFile(atPath: $0) })
    let status = backend.runInTerminal(editor + " \"$1\"", argument: file.path)
    dirty = true
    guard status == 0 else {
      let reason = status < 0 ? "cannot start /bin/sh" : status == 127 ? "\(editor): command not found" : "\(editor) exited with status \(status)"
      return .editorFinished(nil, error: reason)
    }
    guard let edited = try? String(contentsOf: file, encoding: .utf8) else {
      return .editorFinished(nil, error: "cannot read the edited file back")
    }
    return .editorFinished(edited == text ? nil : edited, error: nil)
  }
}
