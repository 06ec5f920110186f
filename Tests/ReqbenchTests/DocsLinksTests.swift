import Foundation
import Testing

/// The documentation's relative links lead somewhere: every link in README.md, docs/*.md and
/// Benchmarks/README.md that is not a URL names a file of the repository, and a `#anchor` into
/// a markdown file names one of its headings, slugged as GitHub slugs them.
@Suite("Documentation links")
struct DocsLinksTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The pages a reader of the repository reads.
  static func pages() throws -> [URL] {
    let docs = root.appendingPathComponent("docs")
    let inDocs = try FileManager.default.contentsOfDirectory(atPath: docs.path)
      .filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
    return [root.appendingPathComponent("README.md")] + inDocs
      + [root.appendingPathComponent("Benchmarks/README.md")]
  }

  @Test func everyRelativeLinkLeadsToAFileAndEveryAnchorToAHeading() throws {
    let pages = try Self.pages()
    #expect(pages.count > 10, "the user guide's pages are missing from docs/")
    var problems: [String] = []
    var checked = 0
    for page in pages {
      let text = try String(contentsOf: page, encoding: .utf8)
      let name = String(page.path.dropFirst(Self.root.path.count + 1))
      for (line, target) in Self.links(in: text) where !Self.isExternal(target) {
        checked += 1
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = (String(parts[0]).removingPercentEncoding ?? String(parts[0]))
        let anchor = parts.count > 1 ? String(parts[1]) : nil
        let file = path.isEmpty ? page : page.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else {
          problems.append("\(name):\(line): \(target): no such file")
          continue
        }
        guard let anchor, !anchor.isEmpty else { continue }
        guard !isFolder.boolValue, file.pathExtension == "md" else {
          problems.append("\(name):\(line): \(target): an anchor into a file that is not markdown")
          continue
        }
        let headings = Self.anchors(in: try String(contentsOf: file, encoding: .utf8))
        if !headings.contains(anchor.removingPercentEncoding ?? anchor) {
          problems.append("\(name):\(line): \(target): no heading of \(file.lastPathComponent) has the anchor #\(anchor)")
        }
      }
    }
    #expect(checked > 100, "only \(checked) relative links found: is the link reader broken?")
    #expect(problems.isEmpty, "broken links:\n\(problems.joined(separator: "\n"))")
  }

  @Test func headingsAreSluggedAsGitHubSlugsThem() {
    let text = """
      # The TUI
      ## Environments (`v`)
      ## OAuth 2.0 login
      ## In the TUI: `n` and paste
      ## Paths stay inside the workspace's folder
      ## 1 Requests
      ## Keys
      ## Keys
      ```sh
      # not a heading
      ```
      """
    #expect(
      Self.anchors(in: text) == [
        "the-tui", "environments-v", "oauth-20-login", "in-the-tui-n-and-paste",
        "paths-stay-inside-the-workspaces-folder", "1-requests", "keys", "keys-1",
      ])
    let links = Self.links(in: "see [a](a.md#x) and ![b](../b.svg), not `[c](c.md)`\n```\n[d](d.md)\n```\n[e](<e f.md> \"title\")")
    #expect(links.map(\.target) == ["a.md#x", "../b.svg", "e f.md"])
  }

  // MARK: - Reading markdown

  static func isExternal(_ target: String) -> Bool {
    target.contains("://") || target.hasPrefix("mailto:")
  }

  /// The lines of the text outside fenced code blocks, with their line numbers.
  static func proseLines(of text: String) -> [(number: Int, text: String)] {
    var out: [(Int, String)] = []
    var fence: String?
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let trimmed = line.drop { $0 == " " }
      if let open = fence {
        if trimmed.hasPrefix(open) { fence = nil }
        continue
      }
      if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
        fence = String(trimmed.prefix(3))
        continue
      }
      out.append((index + 1, String(line)))
    }
    return out
  }

  /// Every inline link and image target, outside code, with its line.
  static func links(in text: String) -> [(line: Int, target: String)] {
    let codeSpan = try! NSRegularExpression(pattern: "`+[^`]*`+")
    let link = try! NSRegularExpression(pattern: #"\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)"#)
    var out: [(Int, String)] = []
    for (number, line) in proseLines(of: text) {
      let range = NSRange(line.startIndex..., in: line)
      let prose = codeSpan.stringByReplacingMatches(in: line, range: range, withTemplate: "")
      for match in link.matches(in: prose, range: NSRange(prose.startIndex..., in: prose)) {
        guard let r = Range(match.range(at: 1), in: prose) else { continue }
        var target = String(prose[r])
        if target.hasPrefix("<") { target = String(target.dropFirst().dropLast()) }
        out.append((number, target))
      }
    }
    return out
  }

  /// The anchors of a markdown text's ATX headings, as GitHub makes them: lower-cased, the
  /// characters other than letters, digits, spaces, `-` and `_` dropped, spaces made `-`, and
  /// a repeated one numbered `-1`, `-2`….
  static func anchors(in text: String) -> [String] {
    var seen: [String: Int] = [:]
    var out: [String] = []
    for (_, line) in proseLines(of: text) {
      let hashes = line.prefix { $0 == "#" }
      guard (1...6).contains(hashes.count), line.dropFirst(hashes.count).first == " " else { continue }
      var title = line.dropFirst(hashes.count).trimmingCharacters(in: .whitespaces)
      while title.hasSuffix("#") { title = String(title.dropLast()).trimmingCharacters(in: .whitespaces) }
      var slug = ""
      for scalar in title.lowercased().unicodeScalars {
        if CharacterSet.letters.contains(scalar) || CharacterSet.decimalDigits.contains(scalar)
          || scalar == "-" || scalar == "_"
        {
          slug.unicodeScalars.append(scalar)
        } else if scalar == " " {
          slug.append("-")
        }
      }
      if let count = seen[slug] {
        seen[slug] = count + 1
        out.append("\(slug)-\(count)")
      } else {
        seen[slug] = 1
        out.append(slug)
      }
    }
    return out
  }
}
