// The names the key table is written in: what a key does (`Action`) and where the user is
// (`KeyContext`). The table itself is `Keymap.swift`; the bindings' shape and their help
// sections are `KeyBinding.swift`.

/// What a key does, by name: the same action may be bound to other keys in other places.
public enum Action: String, Sendable, CaseIterable {
  // Everywhere
  case nextPane, previousPane, focusRequests, focusEditor, focusResponse, focusQueue
  case help, cancelAll, save, quit, openPalette, showMessages
  // Moving in a list, scrolling a view
  case down, up, pageDown, pageUp, first, last
  // The request list
  case send, sendIgnoringCache, cancelRequest, filterRequests, clearFilter, editBody, editRequest, newRequest
  case duplicateRequest, renameRequest, deleteRequest, undo, toggleMark, batchFromMarked, chainFromMarked
  case toggleFolder, expandFolder, collapseFolder, renameFolder
  // A batch or chain in the list, a run in the queue
  case runFlow, cancelFlow, resumeChain, cancelRun, toggleRun, expandRun, collapseRun
  // The editor
  case editField, toggleField, keepEdit, cancelEdit, choose, closeChoice, completeName
  // A batch's or chain's form in the editor
  case removeFlowItem, moveItemUp, moveItemDown
  // The response
  case search, nextMatch, previousMatch, jq, writeBody, wrap, previousTab, nextTab
  case olderResponse, newerResponse, resend, back
  // The Events tab of a stream
  case follow
  // The history overlay
  case openHistory, switchHistoryMode, openAsRequest
  // The queue
  case view, cancelExchange, pauseExchange, whereIsFilter, tidyQueue
  // Environments and variables (`v`, `V`)
  case chooseEnvironment, showVariables, applyEnvironment, editVariable, closeOverlay
  case newEnvironment, copyEnvironment, renameEnvironment, deleteEnvironment, addVariable, removeVariable
  // The cookie jar (`K`)
  case showCookies, deleteCookie, clearCookies, revealValues
  // An OAuth 2.0 grant waiting for the user
  case copyAuthorizationURL, copyUserCode, openInBrowser, cancelAuthorization
  // The copy menu (`y`)
  case copy, copyCurl, copyCurlWithSecrets, copyHTTPie, copyHTTP, copyURL, copySentHead, copyBody
  // The command palette
  case runAction
  // Prompts and line editing
  case accept, cancelPrompt
  case cursorLeft, cursorRight, lineStart, lineEnd, deleteBackward, deleteForward, clearBefore, clearAfter
  // Questions
  case cancelAndQuit, quitNow, saveAndQuit, discardAndQuit, overwrite, deleteNow, reloadFromDisk, mergeWithDisk
}

/// Where the user is, for what a key means: one at a time (`AppState.keyContext`), plus
/// `global` under the panes and `lineEdit` under a prompt or a field being edited.
public enum KeyContext: String, Sendable, CaseIterable {
  case global
  /// The request list with a request (or nothing) selected.
  case requests
  /// The request list with a batch or chain selected.
  case flowInList
  /// The request list with a folder selected.
  case folderInList
  case editor
  /// The editor with a batch or chain selected: its form (members, steps, captures).
  case flowEditor
  /// A field of the editor being edited in place.
  case editing
  /// The list of a field's values open in the editor (the body's type, the auth's type).
  case choice
  case response
  /// The response pane showing the Events tab of a stream.
  case events
  /// The queue with an exchange selected.
  case queue
  /// The queue with a batch or chain run (or one of its members or steps) selected.
  case queueRun
  case prompt
  /// The text of a prompt or a field being edited.
  case lineEdit
  case help
  /// The status line's last messages (`M`).
  case messages
  /// The history overlay (`H`) while typing its filter, and on its list.
  case historyFilter, historyList
  /// The environment list (`v`) and the variables in scope (`V`).
  case environments, variables
  /// The cookie jar (`K`).
  case cookies
  /// The copy menu (`y`).
  case copyMenu
  /// An OAuth 2.0 grant waiting for the user (the authorization URL, or the device code).
  case authorization
  /// The command palette (`:`, Ctrl-P).
  case palette
  case confirmQuit, unsavedChanges, confirmOverwrite
  /// `d` asked `delete NAME? y/n`.
  case confirmDelete
  /// A save found the file changed on disk by another program.
  case diskConflict

  /// The contexts of the four panes, where `global` keys apply too.
  public static let panes: [KeyContext] = [
    .requests, .flowInList, .folderInList, .editor, .flowEditor, .response, .events, .queue, .queueRun,
  ]
}
