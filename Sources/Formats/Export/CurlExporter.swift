import Foundation
import RequestEngine
import Workspace

/// Writes a prepared request as one curl command that, run by `sh`, sends what reqbench sends.
///
/// ```swift
/// let request = try workspace.prepare(requestNamed: "create", variables: ["id": "7"])
/// print(CurlExporter.command(for: request))
/// // curl 'http://127.0.0.1:8080/users' \
/// //   -H 'Authorization: Basic ••••' \
/// //   -A 'reqbench/0.1.0' \
/// //   -H 'Content-Type: application/json' \
/// //   --data-binary '{"name":"Ada"}' \
/// //   --compressed \
/// //   -L --max-redirs 10
/// ```
/// What it mirrors of the engine (`Transfer`):
/// - the method: none for GET, `--head` for HEAD (`-X HEAD` would wait for a body that never
///   comes), POST implied by the body, `-X` for the others;
/// - the body exactly: always for POST, PUT and PATCH (even empty), for DELETE and OPTIONS when
///   there is one, never for GET and HEAD. Text goes in `--data-binary '…'` (`--data-raw` when it
///   starts with `@`, which curl would read as a file name); bytes that are not printable UTF-8 (a
///   NUL, invalid UTF-8, control characters other than tab and newline) are piped in with
///   `printf '\ooo…' | curl … --data-binary @-`, which any POSIX `sh` runs;
/// - a file body as `--data-binary @path` (with `-X` for any method but POST, GET included, as
///   the engine sends it), a multipart body as one `-F` per part in order (see `formOption`);
///   paths are the prepared request's, absolute, so the command runs from any folder;
/// - a download as `-o path -C -` (curl's own resume of a partial file) instead of
///   `--compressed`, since the saved bytes must be the resource's own;
/// - every header as written, then reqbench's `User-Agent` (`-A 'reqbench/VERSION'`, the agent's
///   default) unless a header sets one, then the body's `Content-Type` unless a header sets it (an
///   empty `Content-Type:` when reqbench would send none, so curl adds no form type of its own);
/// - `--compressed` unless the request says `"compressed": false` (reqbench then asks for every
///   coding and decodes), `-x` and `--noproxy` for its proxy, `-L --max-redirs N` when it
///   follows redirects, `-k` when insecure, `--max-time` for a deadline, `--connect-timeout` for an
///   idle timeout other than the default 30 s, `--globoff` when the URL has `[]{}`.
///
/// Secrets are masked (`Request.redacted()`) unless `revealSecrets` is true.
public enum CurlExporter {
  /// `userAgent` is what the agent sends when the request sets no `User-Agent` header
  /// (`Agent.Configuration.userAgent`, `reqbench/VERSION` by default).
  public static func command(
    for request: Request, revealSecrets: Bool = false,
    userAgent: String = Agent.Configuration.defaultUserAgent
  ) -> String {
    let request = revealSecrets ? request : request.redacted()
    var first = "curl"
    switch request.method {
    case .POST: if !request.sendsBody { first += " -X POST" }
    // A body on a GET still goes (the engine sends it): -X keeps curl from POSTing.
    case .GET: if request.sendsBody { first += " -X GET" }
    case .HEAD: first += " --head"
    default: first += " -X " + request.method.rawValue
    }
    first += " " + quote(request.url)

    var options: [String] = []
    for field in request.headers {
      // An empty value removes a header curl adds itself (`Name:`) and sends any other empty
      // (`Name;`), as the engine does.
      let line =
        field.value.isEmpty
        ? field.name + (HTTPHeaders.isAddedByCurl(field.name) ? ":" : ";") : "\(field.name): \(field.value)"
      options.append("-H " + quote(line))
    }
    // The agent's own User-Agent, so the server sees reqbench's request, not `curl/x.y`.
    if !request.headers.contains("User-Agent") { options.append("-A " + quote(userAgent)) }
    let body = request.body
    if !request.headers.contains("Content-Type"), body.stream == nil || body.contentType != nil {
      if let type = body.contentType {
        // curl sends the form type of `--data-binary` itself, where the engine leaves it to curl.
        if !request.curlAddsFormType { options.append("-H " + quote("Content-Type: \(type)")) }
      } else if request.method == .POST || !body.bytes.isEmpty {
        options.append("-H " + quote("Content-Type:"))
      }
    }
    let sendsBody = request.sendsBody
    var pipe = ""
    switch body.stream {
    case .file(let path)?:
      // A PUT uploads the file as `-T` does, any other method posts it (as the engine sends it).
      options.append((request.method == .PUT ? "-T " + quote(path) : "--data-binary " + quote("@" + path)))
    case .multipart(let parts)?:
      for part in parts { options.append(formOption(part)) }
    case nil:
      break
    }
    if sendsBody, body.stream == nil {
      if let text = String(validating: body.bytes, as: UTF8.self), isPrintable(text) {
        options.append((text.hasPrefix("@") ? "--data-raw " : "--data-binary ") + quote(text))
      } else {
        pipe = "printf " + printfFormat(body.bytes) + " | "
        options.append("--data-binary @-")
      }
    }
    if let download = request.download {
      // curl's own resume: continue a partial file at the target.
      options.append("-o " + quote(download.path) + " -C -")
    } else if request.compressed {
      options.append("--compressed")
    }
    if let proxy = request.proxy { options.append("-x " + quote(proxy)) }
    if let noProxy = request.noProxy { options.append("--noproxy " + quote(noProxy)) }
    if let target = request.requestTarget { options.append("--request-target " + quote(target)) }
    if request.followRedirects { options.append("-L --max-redirs \(request.maxRedirects)") }
    if request.insecure { options.append("-k") }
    if let digest = request.digest { options.append("--digest -u " + quote(digest.user + ":" + digest.password)) }
    if let caFile = request.tls?.caFile { options.append("--cacert " + quote(caFile)) }
    if let pin = request.tls?.pinnedPublicKey { options.append("--pinnedpubkey " + quote(pin)) }
    if let certificate = request.tls?.clientCertificate { options.append("--cert " + quote(certificate)) }
    if let key = request.tls?.clientKey { options.append("--key " + quote(key)) }
    if let deadline = request.timeouts.deadline {
      options.append("--max-time " + seconds(deadline))
    }
    if request.timeouts.idle != Timeouts().idle {
      options.append("--connect-timeout " + seconds(request.timeouts.idle))
    }
    if request.url.contains(where: { "[]{}".contains($0) }) { options.append("--globoff") }
    return ([pipe + first] + options.map { "  " + $0 }).joined(separator: " \\\n")
  }

  /// One multipart part as a curl option that sends exactly it:
  /// - a file part: `-F 'name=@path;filename=…;type=…'`, the path and file name in double quotes
  ///   when they hold `;`, `,`, a quote or blanks at either end (curl's `-F` syntax);
  /// - a text part: `-F 'name=value;type=…'` when the value means nothing to `-F`; else
  ///   `--form-string 'name=value'`, which sends any value as it is but takes no `;type=` or
  ///   `;filename=`; else (such a value with a type) `-F 'name="value";type=…'`, the value in
  ///   double quotes, which `-F` reads as text. A value means something to `-F` when it starts with
  ///   `@` (a file), `<` (a file's text), `(` (nested parts) or `"`, holds `;` (parameters), or
  ///   starts or ends with blanks (dropped).
  /// A name cannot hold `=` here: curl's name ends at the first one.
  static func formOption(_ part: MultipartPart) -> String {
    var spec: String
    if let file = part.file {
      spec = "@" + formWord(file, ends: ";,")
    } else {
      let value = part.value ?? ""
      let special = value.first.map { "@<(".contains($0) } ?? false
      if !special, !needsFormQuotes(value, ends: ";") {
        spec = value
      } else if part.filename == nil, part.contentType == nil {
        return "--form-string " + quote(part.name + "=" + value)
      } else {
        spec = formQuoted(value)
      }
    }
    let ends = part.file == nil ? ";" : ";,"
    if let filename = part.filename { spec += ";filename=" + formWord(filename, ends: ends) }
    if let type = part.contentType { spec += ";type=" + type }
    return "-F " + quote(part.name + "=" + spec)
  }

  /// `text` as a word of `-F`'s syntax: as it is, or in double quotes when it would not read back.
  static func formWord(_ text: String, ends: String) -> String {
    needsFormQuotes(text, ends: ends) ? formQuoted(text) : text
  }

  static func needsFormQuotes(_ text: String, ends: String) -> Bool {
    let blanks: Set<Character> = [" ", "\t", "\n", "\r"]
    return text.contains(where: { ends.contains($0) }) || text.hasPrefix("\"")
      || text.first.map(blanks.contains) == true || text.last.map(blanks.contains) == true
  }

  /// `"text"`, a quote or backslash inside escaped with a backslash, as `-F` reads it.
  static func formQuoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      + "\""
  }

  /// `word` as one single-quoted shell word, a quote inside written `'\''`: `sh` hands it to curl
  /// exactly as it is (no `$`, backtick, backslash or glob is special inside single quotes).
  public static func quote(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// Text that shows as itself on a terminal and in a shell word: no control characters but tab
  /// and newline.
  static func isPrintable(_ text: String) -> Bool {
    !text.unicodeScalars.contains { scalar in
      (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || scalar.value == 0x7F
        || (0x80...0x9F).contains(scalar.value)
    }
  }

  /// A single-quoted `printf` format that prints exactly `bytes`: printable ASCII as itself, `%`
  /// as `%%`, a backslash as `\\`, every other byte (the quote included, and a leading `-`) as a
  /// 3-digit octal escape.
  static func printfFormat(_ bytes: [UInt8]) -> String {
    var out = "'"
    for (i, byte) in bytes.enumerated() {
      switch byte {
      case UInt8(ascii: "-") where i == 0: out += "\\055"  // a format never reads as an option
      case UInt8(ascii: "%"): out += "%%"
      case UInt8(ascii: "\\"): out += "\\\\"
      case UInt8(ascii: "'"): out += "\\047"
      case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let octal = String(byte, radix: 8)
        out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
      }
    }
    return out + "'"
  }

  /// `5`, `2.5`.
  static func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }
}
