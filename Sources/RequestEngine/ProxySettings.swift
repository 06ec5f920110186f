/// Proxies for http and https URLs and the hosts that bypass them.
///
/// curl itself reads only lower-case `http_proxy`; `fromEnvironment` also honours the upper-case
/// `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` that most tools accept.
public struct ProxySettings: Sendable, Equatable {
  public var http: String?
  public var https: String?
  /// Comma-separated hosts or domains, `*` for all (curl's `NOPROXY` syntax).
  public var noProxy: String?

  public init(http: String? = nil, https: String? = nil, noProxy: String? = nil) {
    self.http = http
    self.https = https
    self.noProxy = noProxy
  }

  public static let none = ProxySettings()

  public static func fromEnvironment(_ environment: [String: String]) -> ProxySettings {
    func value(_ names: String...) -> String? {
      for name in names {
        if let v = environment[name], !v.isEmpty { return v }
      }
      return nil
    }
    return ProxySettings(
      http: value("http_proxy", "HTTP_PROXY"),
      https: value("https_proxy", "HTTPS_PROXY"),
      noProxy: value("no_proxy", "NO_PROXY"))
  }

  /// The proxy for `url`, by scheme.
  func proxy(for url: String) -> String? {
    // The scheme's letters in either case, compared on bytes: no lower-cased copy of each URL.
    var bytes = url.utf8.makeIterator()
    for expected in "https:".utf8 {
      guard let byte = bytes.next(), (expected == UInt8(ascii: ":") ? byte : byte | 0x20) == expected else { return http }
    }
    return https
  }
}
