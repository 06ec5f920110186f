// The engine's downloads: a finished transfer's bytes checked, moved into place, resumed or restarted.

import CCurl
import Foundation

extension Engine {
  /// A download attempt ended: restart from 0 on a wrong range answer, keep the partial data on a
  /// failure (retrying when the policy says), or check and move the file into place off the
  /// engine thread.
  func completeDownload(_ record: ExchangeRecord, _ transfer: Transfer, _ writer: DownloadWriter, curlCode: CURLcode) {
    let info = transfer.info()
    let headers = transfer.responseHeaders
    let body = transfer.finishBody()
    noteSent(record, transfer)
    detach(record, transfer)
    noteAttempt(record, writer)
    let status = info.status > 0 ? info.status : transfer.statusLine
    let response: Response? =
      status > 0
      ? Response(
        status: status, httpVersion: info.version, headers: headers, body: body, effectiveURL: info.effectiveURL,
        redirectCount: record.hops, timing: info.timing.after(record.hopSeconds), bytesSent: info.sent)
      : nil
    if writer.decision == nil, curlCode == CURLE_OK, !transfer.timedOutIdle, let response,
      let location = redirectLocation(record, transfer, response)
    {
      // Nothing was written for a redirect: the next hop opens the target's state again.
      writer.closeKeeping()
      followRedirect(record, response, to: location)
      return
    }

    if case .restart(let reason)? = writer.decision {
      writer.closeDiscarding()
      record.restartReason = reason
      guard record.forcedRestarts >= 2 else {
        record.forcedRestarts += 1
        record.freshStart = reason
        if let attempt = core.restart(record.id) { start(record, attempt: attempt) }
        return
      }
      let error = ExchangeError(
        kind: .transport, message: "the server keeps answering the download's Range requests wrongly (\(reason.rawValue))")
      finish(record, state: .failed, response: response, error: error, download: downloadOutcome(record, writer, resumable: false))
      return
    }

    var error: ExchangeError?
    if transfer.timedOutIdle {
      error = .transport(.timedOut, detail: "no data for \(formatSeconds(transfer.idleTimeout))")
    } else if let writeError = writer.error ?? transfer.bodyError {
      error = .transport(.cannotWriteFile, detail: writeError)
    } else if curlCode != CURLE_OK {
      error = transfer.failure(curlCode: curlCode)
    } else if let response, case .failure? = writer.decision {
      // Whatever the status validator accepts, a download needs the resource itself.
      error = ExchangeError(
        kind: .status, message: "status \(response.status): nothing was downloaded", status: response.status)
    } else if response == nil || writer.decision == nil {
      error = .transport(.connectionLost, detail: "the server sent no response")
    }

    if error == nil {
      // Every byte is here: write out what is buffered, then check and move the file into place
      // without blocking the engine.
      writer.closeForFinalizing()
      if let writeError = writer.error { error = .transport(.cannotWriteFile, detail: writeError) }
    }
    guard var error else {
      let job = FinalizeJob()
      record.finalizing = job
      var served = response
      served?.body = .empty
      record.finalResponse = served
      record.finalWriter = writer
      finalizers[ObjectIdentifier(job)] = record
      core.settle(record.id)
      let part = writer.store.partPath(writer.key)
      let sidecar = writer.store.sidecarPath(writer.key)
      let target = writer.target
      let expected = writer.sidecar.totalLength
      let inbox = self.inbox
      let wake = self.wake
      WorkerThread.detached(name: "rb-finalize") {
        let result = Result { () throws(DownloadFinalizer.Failure) -> Int64 in
          try DownloadFinalizer.finalize(
            part: part, target: target, expectedLength: expected, sidecar: sidecar, claim: job.claim)
        }
        if inbox.post(.downloadFinalized(job, result)) { wake() }
      }
      return
    }
    // An HTTP error such as 404 leaves nothing worth resuming; a transient one (408, 429, 5xx)
    // and any transport failure keep the partial data.
    let transient = error.kind != .status || [408, 429].contains(status) || status >= 500
    if transient { writer.closeKeeping() } else { writer.closeDiscarding() }
    if transient, scheduleRetry(record, after: &error, response: response) { return }
    finish(
      record, state: .failed, response: response, error: error,
      download: downloadOutcome(record, writer, resumable: transient && writer.bytesOnDisk > 0))
  }

  /// Remembers where the first attempt resumed from and why any attempt started over.
  func noteAttempt(_ record: ExchangeRecord, _ writer: DownloadWriter) {
    let outcome = writer.outcome(resumable: false, complete: false)
    if record.resumedFrom == nil { record.resumedFrom = outcome.resumedFrom }
    if let reason = outcome.restartReason { record.restartReason = reason }
  }

  func downloadOutcome(_ record: ExchangeRecord, _ writer: DownloadWriter, resumable: Bool, complete: Bool = false)
    -> DownloadOutcome
  {
    var outcome = writer.outcome(resumable: resumable, complete: complete)
    if let resumedFrom = record.resumedFrom { outcome.resumedFrom = resumedFrom }
    if let reason = record.restartReason { outcome.restartReason = reason }
    return outcome
  }

  /// The state of a download cancelled before or between attempts: what is on disk.
  func pendingOutcome(_ record: ExchangeRecord, _ target: DownloadTarget) -> DownloadOutcome {
    let store = configuration.downloads
    if case .found(let sidecar, let bytes) = store.load(method: record.request.method, target: target.path) {
      return DownloadOutcome(
        file: target.path, bytes: bytes, totalBytes: sidecar.totalLength, resumedFrom: record.resumedFrom ?? 0,
        restartReason: record.restartReason, resumable: bytes > 0, complete: false)
    }
    return DownloadOutcome(
      file: target.path, bytes: 0, totalBytes: nil, resumedFrom: 0, restartReason: record.restartReason,
      resumable: false, complete: false)
  }

  func downloadFinalized(_ job: FinalizeJob, _ result: Result<Int64, DownloadFinalizer.Failure>) {
    guard let record = finalizers.removeValue(forKey: ObjectIdentifier(job)), let writer = record.finalWriter else {
      return
    }
    record.finalizing = nil
    switch result {
    case .success(let size):
      var outcome = downloadOutcome(record, writer, resumable: false, complete: true)
      outcome.bytes = size
      outcome.totalBytes = size
      finish(record, state: .succeeded, response: record.finalResponse, error: nil, download: outcome)
    case .failure(let failure):
      var error: ExchangeError
      var resumable = true
      switch failure {
      case .length(let expected, let found):
        error = .transport(.connectionLost, detail: "the download has \(found) of \(expected) bytes")
      case .checksum(let expected, let found):
        error = ExchangeError(
          kind: .validation, message: "the download's sha256 is \(found), expected \(expected); the data was discarded")
        writer.closeDiscarding()
        resumable = false
      case .io(let message):
        error = .transport(.cannotWriteFile, detail: message)
      case .cancelled:
        error = .cancelled
      }
      let state: ExchangeState = error.kind == .cancelled ? .cancelled : .failed
      finish(
        record, state: state, response: record.finalResponse, error: error,
        download: downloadOutcome(record, writer, resumable: resumable))
    }
  }
}
