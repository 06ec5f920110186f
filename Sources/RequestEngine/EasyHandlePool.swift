import CCurl
import Foundation

/// Easy handles of finished transfers, reset (`curl_easy_reset`) for the next ones: a handle keeps
/// its allocated buffers, so a run of small exchanges does not allocate and free them per exchange.
/// Reset clears every option and the authentication state; connections, the DNS cache and TLS
/// sessions live in the multi handle either way. Engine thread only; it keeps at most `capacity`.
final class EasyHandlePool {
  private var idle: [UnsafeMutableRawPointer] = []
  let capacity: Int

  init(capacity: Int) { self.capacity = capacity }

  deinit {
    for handle in idle { curl_easy_cleanup(handle) }
  }

  func take() -> UnsafeMutableRawPointer? { idle.popLast() ?? curl_easy_init() }

  /// A handle already removed from the multi handle.
  func giveBack(_ handle: UnsafeMutableRawPointer) {
    guard idle.count < capacity else {
      curl_easy_cleanup(handle)
      return
    }
    curl_easy_reset(handle)
    idle.append(handle)
  }
}
