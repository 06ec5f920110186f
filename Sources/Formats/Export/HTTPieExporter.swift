import Foundation
import RequestEngine
import Workspace

/// Writes a prepared request as one HTTPie command that, run by `sh`, sends what reqbench sends
/// (the export the HTTPie importer reads back; checked against HTTPie's own `--offline` print).
///
/// ```swift
/// print(HTTPieExporter.command(for: request))
/// // http --ignore-stdin --raw '{"name":"Ada"}' --follow --max-redirects 10 \
/// //   POST 'http://127.0.0.1:8080/users' \
/// //   'Authorization:Basic ••••' 'User-Agent:reqbench/0.1.0' \
/// //   'Content-Type:application/json' 'Accept:*/*'
/// ```
/// What it writes:
/// - the method always, the URL as sent (query included);
/// - every header as `Name:value` (an empty value, which reqbench does not send, as `Name:`,
///   which unsets it in HTTPie too), then reqbench's `User-Agent` unless a header sets one;
/// - the body as reqbench sends it, never for GET and HEAD: text in `--raw '…'`, bytes that are
///   not printable UTF-8 piped in (`printf '\ooo…' | http …`), a file body from `< path`, a
///   multipart body as `--multipart` items (`name=value`, `name@path;type=…`; a part's own file
///   name is HTTPie's to choose: the path's). With a body, its `Content-Type` (or `Content-Type:`,
///   which removes HTTPie's JSON default) and `Accept:*/*` (what reqbench sends, where HTTPie
///   would ask for JSON) unless headers set them;
/// - `--follow --max-redirects N`, `--verify=no`, `--verify=CAFILE`, `--cert`/`--cert-key`,
///   `--timeout` (the idle timeout, when not the default), `-A digest -a user:password`, and a
///   download as `--download --output path --continue`. A deadline and a pinned public key have
///   no HTTPie option and are left out, and HTTPie adds `Content-Length: 0` to a request without
///   a body;
/// - `--ignore-stdin` unless the body comes from standard input, so it also runs in a script.
///
/// Secrets are masked (`Request.redacted()`) unless `revealSecrets` is true.
public enum HTTPieExporter {
  public static func command(
    for request: Request, revealSecrets: Bool = false,
    userAgent: String = Agent.Configuration.defaultUserAgent
  ) -> String {
    let request = revealSecrets ? request : request.redacted()
    let quote = CurlExporter.quote
    var options: [String] = []
    var items: [String] = []
    var pipe = ""
    var redirect = ""
    for field in request.headers {
      // An empty value removes a header curl adds (HTTPie's unset, `Name:`) and sends any other
      // empty (`Name;`), as the engine does.
      let emptySent = field.value.isEmpty && !HTTPHeaders.isAddedByCurl(field.name)
      items.append(quote(emptySent ? "\(field.name);" : "\(field.name):\(field.value)"))
    }
    if !request.headers.contains("User-Agent") { items.append(quote("User-Agent:" + userAgent)) }

    let body = request.body
    let sendsBody = request.sendsBody
    var fromStdin = false
    if sendsBody {
      switch body.stream {
      case .file(let path)?:
        redirect = " < " + quote(path)
        fromStdin = true
      case .multipart(let parts)?:
        options.append("--multipart")
        for part in parts { items.append(quote(item(part))) }
      case nil:
        if let text = String(validating: body.bytes, as: UTF8.self), CurlExporter.isPrintable(text) {
          options.append("--raw " + quote(text))
        } else {
          pipe = "printf " + CurlExporter.printfFormat(body.bytes) + " | "
          fromStdin = true
        }
      }
      if case .multipart? = body.stream {
        // HTTPie writes the multipart type with its own boundary.
      } else if !request.headers.contains("Content-Type") {
        // With no type of its own a body goes without one, but for an empty body of another
        // method than POST, which libcurl sends as a form (the curl export's rule).
        let type = body.contentType ?? (request.method != .POST && body.bytes.isEmpty ? RequestDraft.formType : "")
        items.append(quote("Content-Type:" + type))
      }
      if !request.headers.contains("Accept") { items.append(quote("Accept:*/*")) }
    }
    if !fromStdin { options.insert("--ignore-stdin", at: 0) }
    if request.followRedirects { options.append("--follow --max-redirects \(request.maxRedirects)") }
    if request.insecure {
      options.append("--verify=no")
    } else if let caFile = request.tls?.caFile {
      options.append("--verify=" + quote(caFile))
    }
    if let certificate = request.tls?.clientCertificate { options.append("--cert " + quote(certificate)) }
    if let key = request.tls?.clientKey { options.append("--cert-key " + quote(key)) }
    if let digest = request.digest { options.append("-A digest -a " + quote(digest.user + ":" + digest.password)) }
    if request.timeouts.idle != Timeouts().idle { options.append("--timeout " + CurlExporter.seconds(request.timeouts.idle)) }
    if let download = request.download { options.append("--download --output " + quote(download.path) + " --continue") }

    let first = pipe + "http" + (options.isEmpty ? "" : " " + options.joined(separator: " "))
    let target = request.method.rawValue + " " + quote(request.url)
    return ([first, target] + items).joined(separator: " \\\n  ") + redirect
  }

  /// One multipart part as an HTTPie item: `name=value`, `name@path;type=…`; the separators
  /// HTTPie reads in a name are escaped with `\`.
  static func item(_ part: MultipartPart) -> String {
    var name = ""
    for character in part.name {
      if ":=@;\\".contains(character) { name.append("\\") }
      name.append(character)
    }
    if let path = part.file { return name + "@" + path + (part.contentType.map { ";type=" + $0 } ?? "") }
    return name + "=" + (part.value ?? "")
  }
}
