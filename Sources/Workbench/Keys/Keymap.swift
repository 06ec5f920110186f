// Every key binding of the TUI, declared once (as bubbles' `key.Binding`): the keys, where they
// apply, the action they map to, a short text for the status bar and a long one for the help.
// `update` asks this table which action a key means where the user is and acts on the action;
// the `?` overlay, the status-bar hints, the overlays' footers, the user guide's key table
// (`reqbench keys --markdown`) and the command palette are all drawn from it (`KeyHelp.swift`).

/// The one table of key bindings.
public enum Keymap {
  /// The table, in the order the help shows it.
  public static let bindings: [KeyBinding] = [
    // Everywhere
    KeyBinding(.nextPane, [.tab], "next pane", .everywhere),
    KeyBinding(.previousPane, [.backTab], "previous pane", .everywhere),
    KeyBinding(.focusRequests, [.char("1")], "the request list", .everywhere),
    KeyBinding(.focusEditor, [.char("2")], "the editor", .everywhere),
    KeyBinding(.focusResponse, [.char("3")], "the response", .everywhere),
    KeyBinding(.focusQueue, [.char("4")], "the queue", .everywhere),
    KeyBinding(.cancelAll, [.char("C")], "cancel everything running", hint: "cancel all", hintIn: [.queue], .everywhere),
    KeyBinding(.save, [.ctrl("s")], "save the workspace", hint: "save", hintIn: [.editor], .everywhere),
    KeyBinding(
      .chooseEnvironment, [.char("v")], "choose the environment (or none; n adds one): it applies at once; Ctrl-S saves the choice",
      hint: "env", hintIn: [.requests, .editor], .everywhere),
    KeyBinding(
      .showVariables, [.char("V")], "the variables in scope for the selected request: value, where it comes from; edit, add, remove them",
      .everywhere),
    KeyBinding(
      .showCookies, [.char("K")], "the cookie jar of the environment: domain, name, value (masked), path, expiry; delete, clear",
      .everywhere),
    KeyBinding(
      .copy, [.char("y")], "copy: the request as curl or .http, its URL, the headers it was sent with, the response body or a header",
      hint: "copy", hintIn: [.response], .everywhere),
    KeyBinding(.help, [.char("?"), .function(1)], "all keys (this help)", hint: "help", .everywhere),
    KeyBinding(
      .showMessages, [.char("M")], "the status line's last messages, newest first, whole (read again what went by or was cut)",
      .everywhere),
    KeyBinding(
      .openPalette, [.char(":"), .ctrl("p")], "the command palette: every action here by name, filtered as you type",
      hint: "commands", hintIn: [.requests], .everywhere),
    KeyBinding(
      .openHistory, [.char("H")], "the history of every request, newest first, filtered as you type", .everywhere),
    KeyBinding(
      .quit, [.char("q"), .ctrl("c")], "quit: asks first while transfers run, then when edits are unsaved", hint: "quit",
      .everywhere),
    // Lists
    KeyBinding(.down, [.down, .char("j")], "next row", .lists),
    KeyBinding(.up, [.up, .char("k")], "previous row", .lists),
    KeyBinding(.pageDown, [.pageDown, .ctrl("d")], "a page down", .lists),
    KeyBinding(.pageUp, [.pageUp, .ctrl("u")], "a page up", .lists),
    KeyBinding(.first, [.home, .char("g")], "first row", .lists),
    KeyBinding(.last, [.end, .char("G")], "last row", .lists),
    // Scrolling
    KeyBinding(.down, [.down, .char("j")], "scroll down a line", hint: "scroll", pair: .up, hintIn: [.help, .messages], .scrolling),
    KeyBinding(.up, [.up, .char("k")], "scroll up a line", .scrolling),
    KeyBinding(.pageDown, [.pageDown, .ctrl("d"), .char(" ")], "a page down", .scrolling),
    KeyBinding(.pageUp, [.pageUp, .ctrl("u")], "a page up", .scrolling),
    KeyBinding(.first, [.home, .char("g")], "the top", .scrolling),
    KeyBinding(.last, [.end, .char("G")], "the end", .scrolling),
    // Request list
    KeyBinding(.send, [.enter, .char("s"), .char("r")], "send the selected request", hint: "send", .requests),
    KeyBinding(
      .newRequest, [.char("n")], "new request: METHOD URL, a curl or HTTPie command or an .http request, then its name",
      hint: "new", .requests, also: [.flowInList, .folderInList]),
    KeyBinding(
      .sendIgnoringCache, [.char("S")], "send it ignoring the cache (the cached response is refreshed)", hint: "no cache",
      .requests),
    KeyBinding(
      .filterRequests, [.char("/")], "filter by name as you type (Esc clears it, keeping the selection)",
      hint: "filter", .requests, also: [.flowInList, .folderInList]),
    KeyBinding(.cancelRequest, [.char("c")], "cancel the request's running exchanges", hint: "cancel", .requests),
    KeyBinding(.editBody, [.char("E")], "edit the body in $EDITOR", hint: "body", .requests),
    KeyBinding(.editRequest, [.char("e")], "edit the request in the editor pane", .requests),
    KeyBinding(.clearFilter, [.escape], "clear the filter", .requests, also: [.flowInList, .folderInList]),
    KeyBinding(.duplicateRequest, [.char("D")], "duplicate it (name-2), right after it", .requests),
    KeyBinding(
      .renameRequest, [.char("R")], "rename or move it (the full name, folders by /); batches and chains follow",
      .requests),
    KeyBinding(.deleteRequest, [.char("d")], "delete it (asks y/n; batch members and chain steps naming it go too)", .requests),
    KeyBinding(
      .undo, [.char("u")], "undo the last delete or folder rename (until the next save)", .requests,
      also: [.flowInList, .folderInList]),
    KeyBinding(.toggleMark, [.char(" ")], "mark or unmark it (for a batch or chain, in marking order)", .requests),
    KeyBinding(.batchFromMarked, [.char("b")], "make a batch of the marked requests (asks its name)", .requests),
    KeyBinding(.chainFromMarked, [.char("B")], "make a chain of the marked requests, in marking order", .requests),
    KeyBinding(.collapseFolder, [.left, .char("h")], "fold the folder it is in (and select the folder)", .requests),
    // A folder in the list
    KeyBinding(.toggleFolder, [.enter, .char(" ")], "fold or unfold it", hint: "fold", .folderInList),
    KeyBinding(.expandFolder, [.right, .char("l")], "unfold it (open: to its first row)", .folderInList),
    KeyBinding(.collapseFolder, [.left, .char("h")], "fold it (folded: to the folder it is in)", .folderInList),
    KeyBinding(
      .renameFolder, [.char("R")], "rename or move it: every request in it moves, batches and chains follow (u undoes)",
      .folderInList),
    // A batch or chain in the list
    KeyBinding(.runFlow, [.enter, .char("s")], "run it", hint: "run", .flowInList),
    KeyBinding(.cancelFlow, [.char("c")], "cancel its runs", hint: "cancel", .flowInList),
    KeyBinding(
      .resumeChain, [.char("r")], "resume a chain that failed or was cancelled, from that step, with the values captured",
      hint: "resume", .flowInList),
    // Editor
    KeyBinding(
      .editField, [.char("e"), .enter], "edit the field in place; on Body or Auth choose its type from a list",
      hint: "edit field", .editor),
    // Sending before the rest: a short status bar drops hints from its end.
    KeyBinding(.send, [.char("s")], "send the request", hint: "send", .editor),
    KeyBinding(.sendIgnoringCache, [.char("S")], "send it ignoring the cache", .editor),
    KeyBinding(
      .toggleField, [.char(" ")], "switch a header or query parameter off (kept, not sent) or back on", hint: "on/off",
      .editor),
    KeyBinding(
      .editBody, [.char("E")], "edit the body in $EDITOR (a json body in a .json file; JSON typed for no body makes one)",
      hint: "body in $EDITOR", .editor),
    KeyBinding(.newRequest, [.char("n")], "new request (the next one, right after making one)", .editor),
    // A batch's or chain's form in the editor
    KeyBinding(
      .editField, [.char("e"), .enter],
      "edit the line in place: a member's or step's request, a capture (name = .jq.path), the concurrency; "
        + "on Mode or On failure choose from a list; on a + line add one",
      hint: "edit", .flowEditor),
    KeyBinding(.runFlow, [.char("s")], "run the batch or chain", hint: "run", .flowEditor),
    KeyBinding(
      .removeFlowItem, [.char("d")], "remove the member, the capture, or the step (with its captures)", hint: "remove",
      .flowEditor),
    KeyBinding(.moveItemUp, [.char("<")], "move the member, step or capture up (earlier)", hint: "move", pair: .moveItemDown, .flowEditor),
    KeyBinding(.moveItemDown, [.char(">")], "move it down (later)", .flowEditor),
    KeyBinding(.cancelFlow, [.char("c")], "cancel its runs", .flowEditor),
    // Editing a field
    KeyBinding(.keepEdit, [.enter], "keep the value (an empty one removes a parameter or header)", hint: "keeps", .editing),
    KeyBinding(.cancelEdit, [.escape], "cancel the edit", hint: "cancels", .editing),
    KeyBinding(.save, [.ctrl("s")], "keep the value, then save the workspace", .editing),
    KeyBinding(
      .completeName, [.tab], "complete a batch member's or chain step's request name (the names that fit show below it)",
      .editing),
    // Choosing a type
    KeyBinding(.down, [.down, .char("j")], "next type", .choice),
    KeyBinding(.up, [.up, .char("k")], "previous type", .choice),
    KeyBinding(.first, [.home, .char("g")], "the first", .choice),
    KeyBinding(.last, [.end, .char("G")], "the last", .choice),
    KeyBinding(
      .choose, [.enter, .char(" ")], "take it (what the body or auth holds is kept where the new type can hold it)",
      hint: "takes it", .choice),
    KeyBinding(.closeChoice, [.escape, .char("q")], "close, keeping the type", hint: "keeps the type", .choice),
    // Response
    KeyBinding(.search, [.char("/")], "search the body", hint: "search", .response),
    KeyBinding(.nextMatch, [.char("n")], "next match", hint: "next", pair: .previousMatch, .response),
    KeyBinding(.previousMatch, [.char("N")], "previous match", .response),
    KeyBinding(.jq, [.char("|")], "filter the JSON body with jq", hint: "jq", .response),
    KeyBinding(
      .writeBody, [.char("w")], "write the body (or the jq output shown) to a file; asks before overwriting one",
      hint: "write", .response),
    KeyBinding(.wrap, [.char("W")], "wrap long lines, or stop wrapping them", hint: "wrap", .response),
    KeyBinding(
      .previousTab, [.left, .char("h")], "previous tab (body, a stream's events, headers, timing, the request as sent)",
      hint: "tabs", pair: .nextTab, .response, also: [.events]),
    KeyBinding(.nextTab, [.right, .char("l")], "next tab", .response, also: [.events]),
    KeyBinding(
      .olderResponse, [.char("[")], "an older response of the request, from history", hint: "history", pair: .newerResponse,
      .response),
    KeyBinding(.newerResponse, [.char("]")], "a newer one (after the newest: the live response)", .response),
    KeyBinding(
      .resend, [.char("s"), .char("r")], "send it again (a response from history: as it was recorded)", .response,
      also: [.events]),
    KeyBinding(.back, [.escape], "stop a search or a running jq, clear the jq filter, leave history", .response),
    // The Events tab of a stream
    KeyBinding(.down, [.down, .char("j")], "next event", .events),
    KeyBinding(.up, [.up, .char("k")], "previous event (the list stops following the tail)", .events),
    KeyBinding(.pageDown, [.pageDown, .ctrl("d"), .char(" ")], "a page down", .events),
    KeyBinding(.pageUp, [.pageUp, .ctrl("u")], "a page up", .events),
    KeyBinding(.first, [.home, .char("g")], "the first event kept", .events),
    KeyBinding(.last, [.end, .char("G")], "the last event so far", .events),
    KeyBinding(.follow, [.char("F")], "follow the tail again: each new event is selected as it comes", hint: "follow", .events),
    KeyBinding(.search, [.char("/")], "search the events' data", hint: "search", .events),
    KeyBinding(.nextMatch, [.char("n")], "next matching event", hint: "next", pair: .previousMatch, .events),
    KeyBinding(.previousMatch, [.char("N")], "previous matching event", .events),
    KeyBinding(
      .jq, [.char("|")], "jq over each event's data (.choices[0].delta.content), live as events come", hint: "jq each",
      .events),
    KeyBinding(
      .writeBody, [.char("w")], "write the events kept as NDJSON (or the jq outputs shown) to a file; asks before overwriting one",
      hint: "write", .events),
    KeyBinding(.cancelExchange, [.char("c")], "end the stream (cancelled, its events kept)", hint: "end", .events),
    KeyBinding(.back, [.escape], "stop a running jq, clear the jq filter", .events),
    // Queue
    KeyBinding(.cancelExchange, [.char("c")], "cancel the selected exchange", hint: "cancel", .queue),
    KeyBinding(
      .pauseExchange, [.char("p")],
      "pause the selected exchange (out of the queue, or its transfer held still on the wire), or let it go on",
      hint: "pause", .queue),
    KeyBinding(
      .resend, [.char("r"), .char("s")], "send it again; a download resumes from the bytes on disk", hint: "re-send / resume",
      .queue),
    KeyBinding(.view, [.enter], "show the exchange in the response pane", hint: "view", .queue),
    KeyBinding(.whereIsFilter, [.char("/")], "says where / works (the queue has no filter)", .queue),
    KeyBinding(
      .tidyQueue, [.char("x")], "tidy the queue: remove the finished rows, runs included (what runs stays)",
      hint: "tidy", .queue, also: [.queueRun]),
    // A run in the queue
    KeyBinding(.cancelRun, [.char("c")], "cancel the whole run", hint: "cancel the run", .queueRun),
    KeyBinding(.resumeChain, [.char("r")], "resume a chain that failed or was cancelled", hint: "resume a chain", .queueRun),
    KeyBinding(
      .view, [.enter], "on a run: show or hide its members or steps; on a member: show its exchange",
      hint: "members and steps", pair: .expandRun, .queueRun),
    KeyBinding(.toggleRun, [.char(" ")], "show or hide its members or steps", .queueRun),
    KeyBinding(.expandRun, [.right, .char("l")], "show its members or steps", .queueRun),
    KeyBinding(.collapseRun, [.left, .char("h")], "hide them", .queueRun),
    // Prompts
    KeyBinding(.accept, [.enter], "search, filter, write…", .prompt),
    KeyBinding(.cancelPrompt, [.escape], "close the prompt", hint: "cancels", .prompt),
    KeyBinding(
      .save, [.ctrl("s")], "act on the text as Enter does, then save the workspace (when no other question follows)",
      .prompt),
    // Line editing
    KeyBinding(.cursorLeft, [.left], "cursor left", hint: "edits", .lineEdit),
    KeyBinding(.cursorRight, [.right], "cursor right", .lineEdit),
    KeyBinding(.lineStart, [.home, .ctrl("a")], "to the start", .lineEdit),
    KeyBinding(.lineEnd, [.end, .ctrl("e")], "to the end", .lineEdit),
    KeyBinding(.deleteBackward, [.backspace], "delete before the cursor", .lineEdit),
    KeyBinding(.deleteForward, [.delete], "delete after the cursor", .lineEdit),
    KeyBinding(.clearBefore, [.ctrl("u")], "clear before the cursor", hint: "clears", .lineEdit),
    KeyBinding(.clearAfter, [.ctrl("k")], "clear after the cursor", .lineEdit),
    // The command palette
    KeyBinding(.down, [.down, .ctrl("n")], "next action", hint: "select", pair: .up, .palette),
    KeyBinding(.up, [.up, .ctrl("p")], "previous action", .palette),
    KeyBinding(.pageDown, [.pageDown], "a page down", .palette),
    KeyBinding(.pageUp, [.pageUp], "a page up", .palette),
    KeyBinding(.runAction, [.enter], "run it, as its key would (in its pane: the focus moves there)", hint: "run", .palette),
    KeyBinding(.closeOverlay, [.escape], "close", hint: "close", .palette),
    // The history overlay
    KeyBinding(.down, [.down], "next entry", hint: "select", pair: .up, .historyFilter),
    KeyBinding(.up, [.up], "previous entry", .historyFilter),
    KeyBinding(.pageDown, [.pageDown], "a page down", .historyFilter),
    KeyBinding(.pageUp, [.pageUp], "a page up", .historyFilter),
    KeyBinding(.view, [.enter], "show the exchange in the response pane ([ and ] go on from it)", hint: "show", .historyFilter),
    KeyBinding(.switchHistoryMode, [.tab], "to the list, where s and o act", hint: "to the list", .historyFilter),
    KeyBinding(.back, [.escape], "clear the filter; with none, close", hint: "clear or close", .historyFilter),
    KeyBinding(.down, [.down, .char("j")], "next entry", hint: "select", pair: .up, .historyList),
    KeyBinding(.up, [.up, .char("k")], "previous entry", .historyList),
    KeyBinding(.pageDown, [.pageDown, .ctrl("d")], "a page down", .historyList),
    KeyBinding(.pageUp, [.pageUp, .ctrl("u")], "a page up", .historyList),
    KeyBinding(.first, [.home, .char("g")], "the newest", .historyList),
    KeyBinding(.last, [.end, .char("G")], "the oldest shown", .historyList),
    KeyBinding(.view, [.enter], "show the exchange in the response pane", hint: "show", .historyList),
    KeyBinding(
      .resend, [.char("s"), .char("r")], "send it again as recorded (masked secrets: the workspace's request)",
      hint: "send again", .historyList),
    KeyBinding(
      .openAsRequest, [.char("o")], "open it as a new request of the workspace (unsaved; masked values: the workspace request's)",
      hint: "open as new request", .historyList),
    KeyBinding(.switchHistoryMode, [.tab, .char("/")], "back to typing the filter", hint: "filter", .historyList),
    KeyBinding(.back, [.escape], "close", hint: "close", .historyList),
    // Environments
    KeyBinding(.down, [.down, .char("j")], "next environment", hint: "select", pair: .up, .environments),
    KeyBinding(.up, [.up, .char("k")], "previous environment", .environments),
    KeyBinding(
      .applyEnvironment, [.enter], "use it: the editor's resolved URL, sends and the status bar follow at once",
      hint: "use it", .environments),
    KeyBinding(
      .newEnvironment, [.char("n")], "a new environment: type its name; it is used at once, V adds its variables",
      hint: "new", .environments),
    KeyBinding(
      .copyEnvironment, [.char("c")], "a copy of the highlighted environment (its variables) under a new name",
      hint: "copy", .environments),
    KeyBinding(
      .renameEnvironment, [.char("r"), .char("R")],
      "rename the highlighted environment (its cookie jar follows when saved)", hint: "rename", .environments),
    KeyBinding(
      .deleteEnvironment, [.char("d")], "delete the highlighted environment (press d twice)", hint: "delete", .environments),
    KeyBinding(.closeOverlay, [.escape, .char("v"), .char("q")], "close, keeping the environment", hint: "close", .environments),
    // Variables
    KeyBinding(.down, [.down, .char("j")], "next variable", hint: "select", pair: .up, .variables),
    KeyBinding(.up, [.up, .char("k")], "previous variable", .variables),
    KeyBinding(.pageDown, [.pageDown, .ctrl("d")], "a page down", .variables),
    KeyBinding(.pageUp, [.pageUp, .ctrl("u")], "a page up", .variables),
    KeyBinding(
      .editVariable, [.enter, .char("e")],
      "edit its value: in the environment chosen, else the workspace's variables; a secret, hidden, in the secrets file",
      hint: "edit", .variables),
    KeyBinding(
      .addVariable, [.char("a")],
      "add one (NAME=value; secret.NAME asks hidden) to the environment chosen, else the workspace's variables",
      hint: "add", .variables),
    KeyBinding(
      .removeVariable, [.char("d")], "remove the highlighted variable from the environment or the workspace's variables",
      hint: "remove", .variables),
    KeyBinding(.chooseEnvironment, [.char("v")], "choose the environment", hint: "environments", .variables),
    KeyBinding(.closeOverlay, [.escape, .char("V"), .char("q")], "close", hint: "close", .variables),
    // Cookies
    KeyBinding(.down, [.down, .char("j")], "next cookie", hint: "select", pair: .up, .cookies),
    KeyBinding(.up, [.up, .char("k")], "previous cookie", .cookies),
    KeyBinding(.pageDown, [.pageDown, .ctrl("d")], "a page down", .cookies),
    KeyBinding(.pageUp, [.pageUp, .ctrl("u")], "a page up", .cookies),
    KeyBinding(.first, [.home, .char("g")], "the first cookie", .cookies),
    KeyBinding(.last, [.end, .char("G")], "the last cookie", .cookies),
    KeyBinding(.revealValues, [.char("r")], "show the values (masked ••••) or hide them again", hint: "show values", .cookies),
    KeyBinding(.deleteCookie, [.char("d")], "delete the highlighted cookie, from the jar and its file", hint: "delete", .cookies),
    KeyBinding(.clearCookies, [.char("D")], "clear the jar (press D twice)", hint: "clear all", .cookies),
    KeyBinding(.closeOverlay, [.escape, .char("K"), .char("q")], "close", hint: "close", .cookies),
    // The copy menu
    KeyBinding(.down, [.down, .char("j")], "next entry", hint: "select", pair: .up, .copyMenu),
    KeyBinding(.up, [.up, .char("k")], "previous entry", .copyMenu),
    KeyBinding(.accept, [.enter], "copy it", hint: "copy", .copyMenu),
    KeyBinding(.copyCurl, [.char("c")], "the request as a curl command, secrets masked (••••)", .copyMenu),
    KeyBinding(.copyCurlWithSecrets, [.char("S")], "the request as a curl command with its secrets", .copyMenu),
    KeyBinding(.copyHTTPie, [.char("i")], "the request as an HTTPie command, secrets masked (••••)", .copyMenu),
    KeyBinding(.copyHTTP, [.char("h")], "the request as .http text (secrets stay {{secret.NAME}})", .copyMenu),
    KeyBinding(.copyURL, [.char("u")], "the URL, variables filled in (secrets masked)", .copyMenu),
    KeyBinding(
      .copySentHead, [.char("r")], "the request as sent: its request line and every header curl wrote", .copyMenu),
    KeyBinding(.copyBody, [.char("b")], "the response body shown, or the jq output", .copyMenu),
    KeyBinding(.closeOverlay, [.escape, .char("y"), .char("q")], "close", hint: "close", .copyMenu),
    // An OAuth 2.0 grant waiting for the user
    KeyBinding(.copyAuthorizationURL, [.char("y")], "copy the URL to open (OSC 52)", hint: "copy the URL", .authorization),
    KeyBinding(.copyUserCode, [.char("Y")], "copy the user code to enter (a device code)", hint: "copy the code", .authorization),
    KeyBinding(.openInBrowser, [.char("o")], "open the URL with xdg-open (again)", hint: "open it", .authorization),
    KeyBinding(
      .cancelAuthorization, [.char("c"), .escape], "cancel: stop waiting; the request waiting for the token ends cancelled",
      hint: "cancel", .authorization),
    // Questions
    KeyBinding(
      .cancelAndQuit, [.char("y"), .char("Y"), .enter], "cancel the transfers and quit", hint: "cancel them and quit",
      .confirmQuit),
    KeyBinding(.quitNow, [.ctrl("c")], "cancel them and quit at once, unsaved edits too", hint: "quit at once", .confirmQuit),
    KeyBinding(
      .saveAndQuit, [.char("s"), .char("S"), .char("y"), .char("Y"), .enter], "save and quit", hint: "save and quit",
      .unsavedChanges),
    KeyBinding(
      .discardAndQuit, [.char("d"), .char("D"), .ctrl("c")], "discard the edits and quit", hint: "discard and quit",
      .unsavedChanges),
    KeyBinding(.overwrite, [.char("y"), .char("Y")], "write over it", .confirmOverwrite),
    KeyBinding(.deleteNow, [.char("y"), .char("Y")], "delete it (u undoes it until the next save)", .confirmDelete),
    KeyBinding(
      .mergeWithDisk, [.char("m"), .char("M")],
      "merge: its changes and my unsaved edits together (refused, naming them, where both changed one value)",
      hint: "merge", .diskConflict),
    KeyBinding(.reloadFromDisk, [.char("r"), .char("R")], "reload it and drop my edits", hint: "reload", .diskConflict),
    KeyBinding(.overwrite, [.char("o"), .char("O")], "overwrite it with mine", hint: "overwrite", .diskConflict),
  ]

  /// Which action each key has in each context, built once from the table.
  private static let lookup: [KeyContext: [Key: Action]] = {
    var table: [KeyContext: [Key: Action]] = [:]
    for binding in bindings {
      for context in binding.contexts {
        for key in binding.keys where table[context]?[key] == nil {
          table[context, default: [:]][key] = binding.action
        }
      }
    }
    return table
  }()

  /// The action of a key in a context (in a pane's context, the keys of every pane too).
  public static func action(for key: Key, in context: KeyContext) -> Action? {
    if let action = lookup[context]?[key] { return action }
    return KeyContext.panes.contains(context) ? lookup[.global]?[key] : nil
  }

  /// The binding of an action in a context (for the keys a hint or the palette shows).
  public static func binding(_ action: Action, in context: KeyContext) -> KeyBinding? {
    bindings.first { $0.action == action && $0.contexts.contains(context) }
      ?? (KeyContext.panes.contains(context) ? bindings.first { $0.action == action && $0.contexts.contains(.global) } : nil)
  }

  /// Keys bound twice in one context (the second would never act): a test keeps this empty.
  public static var conflicts: [(context: KeyContext, key: Key, actions: [Action])] {
    var found: [(KeyContext, Key, [Action])] = []
    for context in KeyContext.allCases {
      var seen: [Key: Action] = [:]
      let visible = bindings.filter {
        $0.contexts.contains(context) || (KeyContext.panes.contains(context) && $0.contexts.contains(.global))
      }
      for binding in visible {
        for key in binding.keys {
          if let other = seen[key] { found.append((context, key, [other, binding.action])) }
          seen[key] = binding.action
        }
      }
    }
    return found
  }
}
