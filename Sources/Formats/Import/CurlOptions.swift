import RequestEngine
import Workspace

// The curl options `import curl` knows: what each does once read (`Option`), by long name and by
// letter. Any option missing here is an error naming it (CurlImporter.swift reads the command).

extension CurlImporter {
  /// What a curl option does once read.
  enum Option: Equatable {
    case request, header, json, form, formString, upload, output, remoteName, continueAt
    case user, oauth2Bearer, get, userAgent, referer, cookie
    case insecure, location, maxRedirects, compressed, url, head, maxTime, connectTimeout, retry
    case digest, cacert, pinnedPublicKey, cert, key, urlQuery, range, proxy, noProxy, proxyUser, requestTarget
    /// `-d`, `--data-raw`, `--data-binary`, …
    case data(DataKind)
    /// Shapes curl's output only (or is what reqbench does anyway): read and ignored.
    case ignored, ignoredWithValue
    /// Known to curl, not importable: the message says why.
    case unsupported(String)

    var takesValue: Bool {
      switch self {
      case .request, .header, .data, .json, .form, .formString, .upload, .output, .continueAt,
        .user, .oauth2Bearer, .userAgent, .referer, .cookie, .maxRedirects, .url, .maxTime,
        .connectTimeout, .retry, .ignoredWithValue, .cacert, .pinnedPublicKey, .cert, .key, .urlQuery,
        .range, .proxy, .noProxy, .proxyUser, .requestTarget:
        true
      default: false
      }
    }
  }

  enum DataKind: Equatable { case plain, ascii, raw, binary, urlencode }

  /// A piece of the body from one data option: text, or the file an `@path` option names (read
  /// only when the body is more than that one file).
  enum DataPiece {
    case text(String, json: Bool)
    case file(path: String, kind: DataKind, flag: String, location: SourceLocation)
  }

  /// What sets the body: data options (`-d`, `--json`…), `-F`, or `-T`.
  enum BodyKind: Equatable { case data, form, upload }

  /// The long options read, by name.
  static let longOptions: [String: Option] = [
    "--request": .request, "--header": .header, "--data": .data(.plain),
    "--data-ascii": .data(.ascii), "--data-raw": .data(.raw), "--data-binary": .data(.binary),
    "--data-urlencode": .data(.urlencode), "--json": .json, "--form": .form,
    "--form-string": .formString, "--upload-file": .upload, "--output": .output,
    "--remote-name": .remoteName, "--continue-at": .continueAt, "--user": .user,
    "--oauth2-bearer": .oauth2Bearer, "--get": .get,
    "--user-agent": .userAgent, "--referer": .referer, "--cookie": .cookie,
    "--insecure": .insecure, "--location": .location, "--location-trusted": .location,
    "--max-redirs": .maxRedirects, "--compressed": .compressed, "--url": .url, "--head": .head,
    "--request-target": .requestTarget,
    "--max-time": .maxTime, "--connect-timeout": .connectTimeout, "--retry": .retry,
    "--basic": .ignored, "--globoff": .ignored, "--http1.1": .ignored, "--http2": .ignored,
    // Output only.
    "--silent": .ignored, "--show-error": .ignored, "--verbose": .ignored, "--include": .ignored,
    "--buffer": .ignored, "--progress-bar": .ignored, "--progress-meter": .ignored,
    "--fail": .ignored, "--fail-with-body": .ignored,
    "--create-dirs": .ignored, "--trace-time": .ignored,
    "--write-out": .ignoredWithValue,
    "--dump-header": .ignoredWithValue, "--trace": .ignoredWithValue,
    "--trace-ascii": .ignoredWithValue, "--stderr": .ignoredWithValue,
    // Known, not importable.
    "--cookie-jar": .unsupported("a cookie jar"),
    "--proxy": .proxy,
    "--digest": .digest, "--pinnedpubkey": .pinnedPublicKey, "--cacert": .cacert,
    "--ntlm": .unsupported("NTLM authentication"),
    "--negotiate": .unsupported("Negotiate authentication"),
    "--cert": .cert, "--key": .key,
    "--config": .unsupported("reading options from a file"),
    "--url-query": .urlQuery, "--range": .range, "--noproxy": .noProxy, "--proxy-user": .proxyUser,
  ]

  /// The one-letter options read.
  static let shortOptions: [Character: Option] = [
    "X": .request, "H": .header, "d": .data(.plain), "F": .form, "u": .user, "G": .get,
    "A": .userAgent, "e": .referer, "b": .cookie, "k": .insecure, "L": .location, "I": .head,
    "m": .maxTime, "g": .ignored,
    "s": .ignored, "S": .ignored, "v": .ignored, "i": .ignored, "N": .ignored, "#": .ignored,
    "f": .ignored, "O": .remoteName, "o": .output, "T": .upload, "C": .continueAt,
    "w": .ignoredWithValue, "D": .ignoredWithValue, "c": .unsupported("a cookie jar"),
    "x": .proxy, "r": .range, "U": .proxyUser,
    "E": .cert, "K": .unsupported("reading options from a file"),
  ]
}

extension CurlImporter {
  /// Every long option of curl 7.88 (`curl --help all`), as curl's own table names them: the
  /// `--no-` of a switch left off (`--no-buffer` is `buffer`), `=` after those that take a value.
  /// curl accepts any unambiguous prefix of these (`--sil` is `--silent`), and `--no-` before a
  /// switch's whole name turns it off.
  static let curlLongOptionNames: [String] = [
    "abstract-unix-socket=", "alpn", "alt-svc=", "anyauth", "append", "aws-sigv4=", "basic", "buffer",
    "cacert=", "capath=", "cert-status", "cert-type=", "cert=", "ciphers=", "clobber", "compressed",
    "compressed-ssh", "config=", "connect-timeout=", "connect-to=", "continue-at=", "cookie-jar=",
    "cookie=", "create-dirs", "create-file-mode=", "crlf", "crlfile=", "curves=", "data-ascii=",
    "data-binary=", "data-raw=", "data-urlencode=", "data=", "delegation=", "digest", "disable",
    "disable-eprt", "disable-epsv", "disallow-username-in-url", "dns-interface=", "dns-ipv4-addr=",
    "dns-ipv6-addr=", "dns-servers=", "doh-cert-status", "doh-insecure", "doh-url=", "dump-header=",
    "egd-file=", "engine=", "etag-compare=", "etag-save=", "expect100-timeout=", "fail", "fail-early",
    "fail-with-body", "false-start", "form-escape", "form-string=", "form=", "ftp-account=",
    "ftp-alternative-to-user=", "ftp-create-dirs", "ftp-method=", "ftp-pasv", "ftp-port=", "ftp-pret",
    "ftp-skip-pasv-ip", "ftp-ssl-ccc", "ftp-ssl-ccc-mode=", "ftp-ssl-control", "get", "globoff",
    "happy-eyeballs-timeout-ms=", "haproxy-protocol", "head", "header=", "help=", "hostpubmd5=",
    "hostpubsha256=", "hsts=", "http0.9", "http1.0", "http1.1", "http2", "http2-prior-knowledge", "http3",
    "http3-only", "ignore-content-length", "include", "insecure", "interface=", "ipv4", "ipv6", "json=",
    "junk-session-cookies", "keepalive", "keepalive-time=", "key-type=", "key=", "krb=", "libcurl=",
    "limit-rate=", "list-only", "local-port=", "location", "location-trusted", "login-options=",
    "mail-auth=", "mail-from=", "mail-rcpt-allowfails", "mail-rcpt=", "manual", "max-filesize=",
    "max-redirs=", "max-time=", "metalink", "negotiate", "netrc", "netrc-file=", "netrc-optional", "next",
    "noproxy=", "npn", "ntlm", "ntlm-wb", "oauth2-bearer=", "output-dir=", "output=", "parallel",
    "parallel-immediate", "parallel-max=", "pass=", "path-as-is", "pinnedpubkey=", "post301", "post302",
    "post303", "preproxy", "progress-bar", "progress-meter", "proto-default=", "proto-redir=", "proto=",
    "proxy", "proxy-anyauth", "proxy-basic", "proxy-cacert=", "proxy-capath=", "proxy-cert-type=",
    "proxy-cert=", "proxy-ciphers=", "proxy-crlfile=", "proxy-digest", "proxy-header=", "proxy-insecure",
    "proxy-key-type=", "proxy-key=", "proxy-negotiate", "proxy-ntlm", "proxy-pass=", "proxy-pinnedpubkey=",
    "proxy-service-name=", "proxy-ssl-allow-beast", "proxy-ssl-auto-client-cert", "proxy-tls13-ciphers=",
    "proxy-tlsauthtype=", "proxy-tlspassword=", "proxy-tlsuser=", "proxy-tlsv1", "proxy-user=",
    "proxy1.0=", "proxytunnel", "pubkey=", "quote=", "random-file=", "range=", "rate=", "raw", "referer=",
    "remote-header-name", "remote-name", "remote-name-all", "remote-time", "remove-on-error",
    "request-target=", "request=", "resolve=", "retry-all-errors", "retry-connrefused", "retry-delay=",
    "retry-max-time=", "retry=", "sasl-authzid=", "sasl-ir", "service-name=", "sessionid", "show-error",
    "silent", "socks4=", "socks4a=", "socks5-basic", "socks5-gssapi", "socks5-gssapi-nec",
    "socks5-gssapi-service=", "socks5-hostname=", "socks5=", "speed-limit=", "speed-time=", "ssl",
    "ssl-allow-beast", "ssl-auto-client-cert", "ssl-no-revoke", "ssl-reqd", "ssl-revoke-best-effort",
    "sslv2", "sslv3", "stderr=", "styled-output", "suppress-connect-headers", "tcp-fastopen",
    "tcp-nodelay", "telnet-option=", "tftp-blksize=", "tftp-no-options", "time-cond=", "tls-max=",
    "tls13-ciphers=", "tlsauthtype=", "tlspassword=", "tlsuser=", "tlsv1", "tlsv1.0", "tlsv1.1", "tlsv1.2",
    "tlsv1.3", "tr-encoding", "trace-ascii=", "trace-time", "trace=", "unix-socket=", "upload-file=",
    "url-query=", "url=", "use-ascii", "user-agent=", "user=", "verbose", "version", "write-out=", "xattr",
  ]

  /// What a long option word names, as curl reads it: its full name (`--silent` for `--sil`) and
  /// whether `--no-` turned it off; an error message when no option or several start that way.
  static func resolveLongOption(_ word: String) -> Result<(name: String, off: Bool), LongOptionProblem> {
    var name = String(word.dropFirst(2))
    var off = false
    // curl strips `no-` before looking the name up (`--no-location`), as curl 7.88 does.
    if name.hasPrefix("no-") {
      name.removeFirst(3)
      off = true
    }
    var hits: [String] = []
    for full in curlLongOptionNames {
      let bare = full.hasSuffix("=") ? String(full.dropLast()) : full
      if bare == name { return finish(bare, takesValue: full.hasSuffix("="), off: off, word: word) }
      // After `--no-` curl 7.88 takes the whole name only (`--no-progress-m` is an error).
      if !off, bare.hasPrefix(name) { hits.append(full) }
    }
    guard let hit = hits.first else { return .failure(.unknown) }
    guard hits.count == 1 else {
      return .failure(.ambiguous(hits.map { "--" + ($0.hasSuffix("=") ? String($0.dropLast()) : $0) }.sorted()))
    }
    return finish(hit.hasSuffix("=") ? String(hit.dropLast()) : hit, takesValue: hit.hasSuffix("="), off: off, word: word)
  }

  private static func finish(_ name: String, takesValue: Bool, off: Bool, word: String)
    -> Result<(name: String, off: Bool), LongOptionProblem>
  {
    // `--no-` goes with switches only (curl: "is not a boolean option").
    if off && takesValue { return .failure(.notASwitch(name)) }
    return .success(("--" + name, off))
  }

  enum LongOptionProblem: Error {
    case unknown
    case ambiguous([String])
    case notASwitch(String)
  }
}
