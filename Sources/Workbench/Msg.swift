import Foundation
import History
import RequestEngine
import Workspace

/// Everything that can happen to the UI: input, the agent's events, and the results of commands.
public enum Msg: Sendable {
  case key(Key)
  /// Text pasted (bracketed paste, or a burst of characters in one read): never keys.
  case paste(String)
  /// A paste over `limit` bytes (`PasteAssembler.limit`): dropped.
  case pasteTooLong(limit: Int)
  case mouse(MouseEvent)
  case resize(width: Int, height: Int)
  case agent(AgentEvent)
  /// The clock, sent by the runtime only while transfers run (for elapsed times, speed and ETA).
  case tick(Date)
  /// `$EDITOR` closed: the edited text, or nil when it failed or was left unchanged.
  case editorFinished(String?, error: String?)
  case saved(error: String?)
  /// `w` wrote the body (or failed, saying why); `madeFolder`: the folder it made for the path.
  case bodyWritten(path: String, error: String?, madeFolder: String? = nil)
  /// `writeBody` without `overwrite` found a file at `path` (nothing was written).
  case bodyFileExists(path: String)
  /// A jq filter's output lines, or its error.
  case filtered(expression: String, result: Result<String, FilterError>)
  /// jq's outputs for each of some events of the stream shown (`filter` with `events`), or the
  /// error that stopped it (a program that does not compile).
  case eventsFiltered(expression: String, result: Result<EventsFiltered, FilterError>)
  /// A chain capture run over its step's last response (`previewCapture`).
  case capturePreviewed(CapturePreviewKey, CapturePreview)
  /// An earlier response from history (nil: no entry at that position), or why it could not be read.
  case historyShown(HistoryView?, error: String?)
  /// The answer to `searchHistory` number `id` (the history overlay shows the latest only).
  case historyFound(id: Int, HistoryResults, error: String?)
  /// A batch or chain run started (`run` is its id); a chain resumed at `fromStep` keeps the
  /// earlier steps' states and captured values of the run it resumes.
  case flowStarted(run: String, name: String, kind: FlowOutcome.Kind, fromStep: Int = 1)
  case flow(run: String, FlowEvent)
  /// The runtime's answer to `continueSearch`: the next slice of a search in a big body.
  case searchContinue
  /// `setSecret` wrote the secrets file (`secrets`: its content now), or why it could not.
  case secretSaved(name: String, secrets: SecretsFile?, error: String?)
  /// The workspace file changed on disk, or a save found it changed (`DiskChanges.swift`).
  case disk(DiskEvent)
  /// What the cookie jar of `environment` holds now (after `loadCookies`, `removeCookie` or
  /// `clearCookies`).
  case cookiesLoaded(environment: String?, [Cookie])
  /// A cookie jar could not be read or written (`CookieJars` says so once per file and reason).
  case cookieJarFailed(String)
  /// An interactive OAuth 2.0 grant started, opened its URL, or ended (`AuthorizationOverlay.swift`).
  case authorization(AuthorizationEvent)
}

public struct FilterError: Error, Sendable, Equatable {
  public var message: String
  public init(_ message: String) { self.message = message }
}

/// Side effects `update` asks the runtime to perform. Values, so tests can compare them.
public enum Command: Sendable, Equatable {
  case send(Request)
  case cancel(ExchangeID)
  case cancelAll
  /// Pauses an exchange (`Agent.pause`), or lets a paused one go on (`Agent.resume`).
  case pause(ExchangeID)
  case resume(ExchangeID)
  /// Saves the workspace (and nothing else) to its file, atomically; refused (`disk(.saveRefused)`)
  /// when another program changed the file since it was loaded or saved.
  case save
  /// Saves it over another program's change (the user said so).
  case saveOverwriting
  /// Reads the file again, dropping the edits made here (the user said so).
  case reload
  /// Merges the edits made here with another program's change of the file
  /// (`WorkspaceFile.merge`); comes back as `disk(.merged)` or `disk(.mergeFailed)`.
  case mergeWithDisk
  /// Opens `$EDITOR` on this text (the runtime suspends the screen meanwhile).
  case edit(text: String, fileExtension: String)
  /// Writes the exchange's body, or `jqOutput` (the jq filter's output shown instead), or with
  /// `events` the stream's events kept, as NDJSON (one `run --json` stream line each), to `path`;
  /// an existing file only with `overwrite` (else `bodyFileExists` comes back).
  case writeBody(ExchangeID, path: String, jqOutput: String? = nil, events: Bool = false, overwrite: Bool = false)
  /// Runs a jq expression over a body in the background; with `events`, over the data of each
  /// of those events of the exchange's stream (`eventsFiltered` comes back).
  case filter(expression: String, ExchangeID, events: Range<Int>? = nil)
  /// Runs a chain capture over the response of an exchange, as a run of the chain would
  /// (`FlowRunner.capture`), in the background; `capturePreviewed` comes back.
  case previewCapture(Capture, CapturePreviewKey)
  /// Reads the history entry of request `name` at `position` (0 the newest) and its body.
  case showHistory(name: String, position: Int)
  /// Searches the history of every request (the `H` overlay); `historyFound` comes back.
  case searchHistory(HistoryQuery, id: Int)
  /// Reads this entry's bodies and its place among its request's entries; `historyShown` comes
  /// back.
  case loadHistoryEntry(HistoryEntry)
  /// Runs a batch or chain; a chain may resume at a step with the values captured before.
  case runFlow(name: String, fromStep: Int, captured: [String: String])
  case cancelFlow(run: String)
  /// Sends `searchContinue` back once pending input and events have been handled.
  case continueSearch
  /// Sets the secret `name` in the secrets file beside the workspace (read again first, so
  /// secrets another program added stay); `secretSaved` comes back.
  case setSecret(name: String, value: String)
  /// Puts the text on the terminal's clipboard (OSC 52, `Clipboard.osc52`).
  case copy(String)
  /// Reads the cookie jar of the environment (`K`); `cookiesLoaded` comes back.
  case loadCookies(environment: String?)
  /// Removes one cookie from the jar (and its file); `cookiesLoaded` comes back.
  case removeCookie(environment: String?, Cookie)
  /// Empties the jar (and its file); `cookiesLoaded` comes back.
  case clearCookies(environment: String?)
  /// Opens `url` with `xdg-open` when there is a display; `authorization(.browser)` comes back.
  case openInBrowser(id: Int, url: String)
  /// Stops the interactive grant `id`: the request waiting for its token fails, `cancelled`.
  case cancelAuthorization(id: Int)
  case quit
}
