// The curl options `import curl` knows: what each does once read (`Option`), by long name and by
// letter. Any option missing here is an error naming it (CurlImporter.swift reads the command).

extension CurlImporter {
  /// What a curl option does once read.
  enum Option: Equatable {
    case request, header, json, form, formString, upload, output, remoteName, continueAt
    case user, oauth2Bearer, get, userAgent, referer, cookie
    case insecure, location, maxRedirects, compressed, url, head, maxTime, connectTimeout, retry
    case digest, cacert, pinnedPublicKey, cert, key
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
        .connectTimeout, .retry, .ignoredWithValue, .cacert, .pinnedPublicKey, .cert, .key:
        true
      default: false
      }
    }
  }

  enum DataKind: Equatable { case plain, ascii, raw, binary, urlencode }

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
    "--max-time": .maxTime, "--connect-timeout": .connectTimeout, "--retry": .retry,
    "--basic": .ignored, "--globoff": .ignored, "--http1.1": .ignored, "--http2": .ignored,
    // Output only.
    "--silent": .ignored, "--show-error": .ignored, "--verbose": .ignored, "--include": .ignored,
    "--no-buffer": .ignored, "--progress-bar": .ignored, "--no-progress-meter": .ignored,
    "--fail": .ignored, "--fail-with-body": .ignored,
    "--create-dirs": .ignored, "--trace-time": .ignored,
    "--write-out": .ignoredWithValue,
    "--dump-header": .ignoredWithValue, "--trace": .ignoredWithValue,
    "--trace-ascii": .ignoredWithValue, "--stderr": .ignoredWithValue,
    // Known, not importable.
    "--cookie-jar": .unsupported("a cookie jar"),
    "--proxy": .unsupported("a proxy (reqbench reads HTTP_PROXY / HTTPS_PROXY)"),
    "--digest": .digest, "--pinnedpubkey": .pinnedPublicKey, "--cacert": .cacert,
    "--ntlm": .unsupported("NTLM authentication"),
    "--negotiate": .unsupported("Negotiate authentication"),
    "--cert": .cert, "--key": .key,
    "--config": .unsupported("reading options from a file"),
  ]

  /// The one-letter options read.
  static let shortOptions: [Character: Option] = [
    "X": .request, "H": .header, "d": .data(.plain), "F": .form, "u": .user, "G": .get,
    "A": .userAgent, "e": .referer, "b": .cookie, "k": .insecure, "L": .location, "I": .head,
    "m": .maxTime, "g": .ignored,
    "s": .ignored, "S": .ignored, "v": .ignored, "i": .ignored, "N": .ignored, "#": .ignored,
    "f": .ignored, "O": .remoteName, "o": .output, "T": .upload, "C": .continueAt,
    "w": .ignoredWithValue, "D": .ignoredWithValue, "c": .unsupported("a cookie jar"),
    "x": .unsupported("a proxy (reqbench reads HTTP_PROXY / HTTPS_PROXY)"),
    "E": .cert, "K": .unsupported("reading options from a file"),
  ]
}
