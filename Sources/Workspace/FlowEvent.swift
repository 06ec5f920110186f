import Foundation
import RequestEngine

/// How one target (a request, a batch or a chain) ended; batches nest their members, chains their
/// steps.
public struct FlowOutcome: Sendable {
  public enum Kind: String, Sendable { case request, batch, chain }

  public var kind: Kind
  public var name: String
  /// `.succeeded`, `.failed` or `.cancelled`.
  public var state: ExchangeState
  /// The exchange of a request (or a chain step).
  public var exchange: ExchangeResult?
  /// Why a flow failed where the exchange does not say it: a capture that found nothing, a failed
  /// member, a request that could not be built.
  public var message: String?
  /// `capture`, `member`, `step`, `usage`, or the exchange's error kind.
  public var errorKind: String?
  public var members: [FlowOutcome] = []
  public var steps: [FlowOutcome] = []
  /// A chain: every value captured; a step: the values it captured.
  public var captured: [(name: String, value: String)] = []
  /// A step whose capture found nothing: which capture, and why (the body it ran on is the
  /// exchange's).
  public var captureFailure: CaptureFailure?
  /// A chain step: its 1-based index; a chain that failed or was cancelled: the step it stopped at.
  public var step: Int?
  /// A chain: how many steps it has (a resumed run's `steps` hold only the steps it ran).
  public var stepCount: Int?

  /// Why a capture found nothing: `capture token: .token found nothing in the body: {…`.
  public struct CaptureFailure: Error, Sendable, Equatable {
    /// The captured value's name, its source as written (`.token`, `header:ETag`, `status`),
    /// and what went wrong (`found nothing`, jq's error).
    public var capture: String
    public var source: String
    public var reason: String
    /// The start of the body it ran on (jq captures), as in `message`.
    public var body: String?
    /// One line: the capture, the source, the reason and the start of the body.
    public var message: String

    public init(capture: String, source: String, reason: String, body: String? = nil, message: String? = nil) {
      self.capture = capture
      self.source = source
      self.reason = reason
      self.body = body
      self.message = message ?? "capture \(capture): \(reason)"
    }
  }

  public init(kind: Kind, name: String, state: ExchangeState) {
    self.kind = kind
    self.name = name
    self.state = state
  }

  /// Served from the cache: a request whose response was a cache hit; a batch or chain whose
  /// every member or step was; never an empty one.
  public var fromCache: Bool {
    switch kind {
    case .request: exchange?.fromCache == true
    case .batch: !members.isEmpty && members.allSatisfy(\.fromCache)
    case .chain: !steps.isEmpty && steps.allSatisfy(\.fromCache)
    }
  }
}

/// What a flow reports while it runs.
/// A chain's events carry the batch it runs in (nil on its own); step indices are absolute
/// (a chain resumed at step 3 reports steps 3, 4, …).
public enum FlowEvent: Sendable {
  /// A chain moved to step `index` (1-based) of `count`.
  case step(chain: String, batch: String?, index: Int, count: Int, request: String)
  /// A chain step captured values.
  case captured(chain: String, batch: String?, index: Int, values: [(name: String, value: String)])
  /// A chain step ended (its outcome has `step` set), before the chain goes on or stops.
  case stepFinished(chain: String, batch: String?, outcome: FlowOutcome)
  /// A batch member (`index`, 0-based, in the batch's `members`) ended: `done` of `total`.
  case member(batch: String, index: Int, done: Int, total: Int, outcome: FlowOutcome)
  /// The flow that was started ended (once; never for a member or a step).
  case finished(FlowOutcome)
}
