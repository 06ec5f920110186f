import Foundation
import RequestEngine
import Workspace

/// The Elm-style update: applies one message to the state and returns the side effects to run.
/// Pure: no I/O, no clock, no threads. Keys go to the layer on top (`AppState.layer`: the modal,
/// the editor's field or type list, else the focused pane); each pane and overlay handles its own
/// keys and messages in its own file (`Requests/`, `Editor/`, `Response/`, `Queue/`, `Prompts/`,
/// `Overlays/`, `Modal/`, `Mouse.swift`).
public func update(_ state: inout AppState, _ msg: Msg) -> [Command] {
  let commands = route(&state, msg)
  // Whatever selected another request (a key, the mouse, a filter, a resize), the editor shows
  // its first fields.
  state.editor.follow(state.selectedRequest?.name ?? state.selectedFlow?.name)
  // A chain shown: its captures previewed against their steps' last responses (jq runs outside).
  return commands + state.capturePreviewCommands()
}

/// Hands a message to the overlay, prompt or component it concerns.
private func route(_ state: inout AppState, _ msg: Msg) -> [Command] {
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
    var commands = state.cookiesAfter(event)
    switch event {
    case .streamEvents(let id, _) where id == state.viewer.exchange: commands += state.followEventsFilter()
    case .finished(let result) where result.id == state.viewer.exchange: commands += state.followEventsFilter()
    default: break
    }
    return commands
  case .key(let key):
    return state.handle(key)
  case .paste(let text):
    return state.handlePaste(text)
  case .pasteTooLong(let limit):
    state.message = StatusMessage(
      "paste too long (over \(limit) bytes): nothing added; save it to a file and use reqbench import", isError: true)
    return []
  case .mouse(let event):
    return state.handle(event)
  case .editorFinished(let text, let error):
    state.bodyEdited(text, error: error)
    return []
  case .saved(let error):
    return state.saved(error: error)
  case .bodyFileExists(let path):
    state.bodyFileExists(path)
    return []
  case .bodyWritten(let path, let error, let madeFolder):
    state.bodyWritten(path, error: error, madeFolder: madeFolder)
    return []
  case .capturePreviewed(let key, let preview):
    state.editor.capturePreviews[key] = preview
    return []
  case .filtered(let expression, let result):
    state.filtered(expression, result)
    return []
  case .eventsFiltered(let expression, let result):
    return state.eventsFiltered(expression, result)
  case .flowStarted(let run, let name, let kind, let fromStep):
    state.startFlow(run: run, name: name, kind: kind, fromStep: fromStep)
    return []
  case .flow(let run, let event):
    state.apply(event, run: run)
    return []
  case .searchContinue:
    return state.continueSearch()
  case .historyShown(let view, let error):
    return state.historyShown(view, error: error)
  case .historyFound(let id, let results, let error):
    state.historyFound(id: id, results, error: error)
    return []
  case .secretSaved(let name, let secrets, let error):
    state.secretSaved(name: name, secrets: secrets, error: error)
    return []
  case .disk(let event):
    state.diskChanged(event)
    return []
  case .cookiesLoaded(let environment, let cookies):
    state.cookiesLoaded(environment: environment, cookies)
    return []
  case .cookieJarFailed(let error):
    state.message = StatusMessage("cookies: \(error)", isError: true)
    return []
  case .authorization(let event):
    return state.authorizationEvent(event)
  }
}

extension AppState {
  /// Where the user is, for what a key means (`Keymap`): the context of the layer on top.
  public var keyContext: KeyContext {
    switch layer {
    case .overlay(let overlay): overlay.keyContext(in: self)
    case .question(let question): question.keyContext
    case .prompt: .prompt
    case .tooSmall, .field, .choice, .pane: paneContext
    }
  }

  /// The focused pane's context (a field being edited in the editor's), whatever is open over it.
  var paneContext: KeyContext {
    if editor.editing != nil { return .editing }
    if editor.choosing != nil { return .choice }
    return context(of: focus)
  }

  mutating func handle(_ key: Key) -> [Command] {
    switch layer {
    case .overlay(let overlay):
      return type(of: overlay).update(key, &self)
    case .tooSmall:
      // Nothing else is on the screen: keys that act unseen are ignored.
      return Keymap.action(for: key, in: .global) == .quit ? quit() : []
    case .question(let question):
      return answer(question, key)
    case .prompt:
      return handlePrompt(key)
    case .field:
      return handleEditing(key)
    case .choice:
      return handleChoiceKey(key)
    case .pane:
      message = nil
      let context = keyContext
      guard let action = Keymap.action(for: key, in: context) else { return [] }
      return perform(action, in: context)
    }
  }

  /// The key that answers a status-line question: its action acts, any other key drops it.
  private mutating func answer(_ question: Question, _ key: Key) -> [Command] {
    dropQuestion()
    switch question {
    case .overwrite(let command):
      if Keymap.action(for: key, in: .confirmOverwrite) == .overwrite {
        pendingWrite = command
        return [command]
      }
      message = StatusMessage("not written")
      return []
    case .delete(let name):
      answerDelete(name, key)
      return []
    }
  }

  /// Does what an action does where the user is: the key's, or the palette's.
  mutating func perform(_ action: Action, in context: KeyContext) -> [Command] {
    if let overlay = Overlays.opened(by: action) { return overlay.open(&self) }
    switch action {
    case .quit:
      return quit()
    case .nextPane:
      focus = Pane(rawValue: (focus.rawValue + 1) % Pane.allCases.count) ?? .requests
      return []
    case .previousPane:
      focus = Pane(rawValue: (focus.rawValue + Pane.allCases.count - 1) % Pane.allCases.count) ?? .requests
      return []
    case .focusRequests, .focusEditor, .focusResponse, .focusQueue:
      let panes: [Action: Pane] = [.focusRequests: .requests, .focusEditor: .editor, .focusResponse: .response, .focusQueue: .queue]
      focus = panes[action] ?? focus
      return []
    case .cancelAll:
      guard isBusy else {
        message = StatusMessage("nothing is running")
        return []
      }
      let cancelling = StatusMessage("cancelling everything")
      message = cancelling
      awaiting = .cancelAll(cancelled: 0, message: cancelling)
      return [.cancelAll]
    case .save:
      return [.save]
    default:
      break
    }
    switch context {
    case .requests, .flowInList, .folderInList: return handleRequests(action)
    case .editor: return handleEditor(action)
    case .flowEditor: return handleFlowEditor(action)
    case .response: return handleResponse(action)
    case .events: return handleEvents(action)
    case .queue, .queueRun: return handleQueue(action)
    default: return []
    }
  }

  /// `q` and Ctrl-C: asks first while transfers run, then while edits are unsaved.
  mutating func quit() -> [Command] {
    if isBusy {
      open(QuitQuestion())
      return []
    }
    if hasUnsavedEdits {
      open(UnsavedChangesQuestion())
      return []
    }
    return [.quit]
  }

  /// Up, down, page and first/last over `count` items; returns the new index.
  func move(_ action: Action, _ index: Int, count: Int, page: Int) -> Int? {
    ListKeys.target(action, from: index, count: count, page: page)
  }

  /// After a resize: the selected request and queue row scrolled back into view.
  mutating func keepSelectionsInView() {
    guard !layout.tooSmall else { return }
    selectRequest(list.selection)
    keepQueueSelectionInView()
  }

  var layout: Layout { Layout(width: width, height: height) }

  mutating func clampSelections() {
    list.selection = min(list.selection, max(0, selectableCount - 1))
    if let item = queue.flowSelection, !queueFlowItems.contains(item) {
      queue.selected = flows.contains { $0.run == item.run } ? .flow(.flow(run: item.run)) : exchanges.first.map { .exchange($0.id) }
    }
  }

  /// The save's outcome; a save asked for on quitting quits once it succeeded.
  mutating func saved(error: String?) -> [Command] {
    let quitting = quitAfterSave
    quitAfterSave = false
    if let error {
      message = StatusMessage(
        "not saved: \(error)" + (quitting ? "; not quitting (q then d quits without saving)" : ""), isError: true)
      return []
    }
    unsaved = []
    unsavedSettings = []
    sources.renamedEnvironments = [:]  // their jars were moved with the save
    savedEnvironment = workspace.environment
    lastUndo = nil
    disk = nil
    message = StatusMessage((isNewFile ? "created " : "saved ") + workspaceFile)
    isNewFile = false
    return quitting ? [.quit] : []
  }
}
