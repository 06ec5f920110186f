import Foundation

/// A host name mapped to addresses, like curl's `--resolve HOST:PORT:ADDRESS[,ADDRESS]…`
/// (CURLOPT_RESOLVE): connections to HOST on PORT go to ADDRESS without asking the system's
/// resolver; the URL, the `Host` header and TLS (SNI, the certificate's name) keep HOST.
///
/// ```swift
/// let mapping = try HostMapping(parsing: "api.test:443:127.0.0.1")
/// mapping.curlEntry  // "api.test:443:127.0.0.1"
/// ```
/// The agent applies its mappings (`Agent.Configuration.resolve`) to every request: it shares one
/// DNS cache and one connection pool, so a mapping cannot belong to a single request.
public struct HostMapping: Sendable, Equatable, Hashable {
  public var host: String
  public var port: Int
  /// IP addresses (IPv6 without brackets), tried in order.
  public var addresses: [String]

  public init(host: String, port: Int, addresses: [String]) {
    self.host = host
    self.port = port
    self.addresses = addresses
  }

  public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
  }

  /// `HOST:PORT:ADDRESS[,ADDRESS]…`; IPv6 addresses in brackets (`[::1]`).
  public init(parsing text: String) throws(ParseError) {
    func fail(_ why: String) -> ParseError {
      ParseError(message: "\(JSONSerializer.quote(text)) \(why); write it as HOST:PORT:ADDRESS, e.g. api.test:443:127.0.0.1")
    }
    if LineBreaks.find(in: text) != nil { throw fail("contains a line break") }
    let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3 else { throw fail("is not HOST:PORT:ADDRESS") }
    let host = String(parts[0])
    guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0)) })
    else { throw fail("has no host name before the first ':' (letters, digits, '-', '.', '_')") }
    guard let port = Int(parts[1]), (1...65535).contains(port) else { throw fail("has no port from 1 to 65535") }
    var addresses: [String] = []
    for piece in parts[2].split(separator: ",", omittingEmptySubsequences: false) {
      var address = String(piece)
      if address.hasPrefix("[") && address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
      guard Self.isIPAddress(address) else { throw fail("has \(JSONSerializer.quote(String(piece))), which is not an IP address") }
      addresses.append(address)
    }
    self.init(host: host, port: port, addresses: addresses)
  }

  /// What CURLOPT_RESOLVE takes: `host:port:addr1,[v6]`.
  public var curlEntry: String {
    "\(host):\(port):" + addresses.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")
  }

  /// An IPv4 or IPv6 literal (inet_pton decides).
  static func isIPAddress(_ text: String) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 16)
    return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
  }
}
