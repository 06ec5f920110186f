import Foundation
import TestSupport
import Testing

/// The committed screenshots render on their character grid in a real browser: Debian's headless
/// Chromium loads each SVG of `screenshots/` as a document of its own (as an `<img>` or a visit
/// to the file shows it) and reports where it put each character (`getStartPositionOfChar`); every
/// character of a one-column run must start at its cell, 9 px from the one before.
@Suite("screenshots in a browser")
struct ScreenshotRenderingTests {
  static let chromium = "/usr/bin/chromium"

  /// The page that loads each SVG named in its fragment into a frame and writes, per file, a line
  /// `RESULT name checked=N misplaced=M first=…` into the document Chromium dumps.
  static let page = """
    <!doctype html><html><body><pre id="out"></pre><script>
    const names = decodeURIComponent(location.hash.slice(1)).split(",");
    const out = document.getElementById("out");
    function next(i) {
      if (i >= names.length) { out.textContent += "DONE\\n"; return; }
      const frame = document.createElement("iframe");
      frame.width = 2000; frame.height = 1200;
      frame.onload = () => {
        let checked = 0, misplaced = 0, first = "";
        for (const text of frame.contentDocument.querySelectorAll("text")) {
          const x0 = parseFloat(text.getAttribute("x"));
          const count = text.getNumberOfChars();
          // Runs of one-column characters only: a wide character is a run of its own.
          if (parseFloat(text.getAttribute("textLength")) !== 9 * count) continue;
          for (let c = 0; c < count; c++) {
            checked++;
            const x = text.getStartPositionOfChar(c).x;
            if (Math.abs(x - (x0 + 9 * c)) > 1) {
              misplaced++;
              if (!first) first = JSON.stringify(text.textContent) + " char " + c + " at " + x.toFixed(1) + ", its cell at " + (x0 + 9 * c);
              break;
            }
          }
        }
        out.textContent += "RESULT " + names[i] + " checked=" + checked + " misplaced=" + misplaced + " first=" + first + "\\n";
        frame.remove();
        next(i + 1);
      };
      frame.src = names[i];
      document.body.appendChild(frame);
    }
    next(0);
    </script></body></html>
    """

  @Test func everyCharacterOfEveryScreenshotStartsAtItsCell() throws {
    #expect(
      FileManager.default.isExecutableFile(atPath: Self.chromium),
      "\(Self.chromium) is missing: install Debian's chromium (`bash .ci/test` does)")
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let shots = root.appendingPathComponent("screenshots")
    let names = try FileManager.default.contentsOfDirectory(atPath: shots.path).filter { $0.hasSuffix(".svg") }.sorted()
    #expect(names.count >= 10, "screenshots/ has \(names.count) SVG files")

    let folder = scratchURL("rb-svg-render")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for name in names {
      try FileManager.default.copyItem(at: shots.appendingPathComponent(name), to: folder.appendingPathComponent(name))
    }
    let page = folder.appendingPathComponent("check.html")
    try Self.page.write(to: page, atomically: true, encoding: .utf8)

    let result = try runProcess(
      URL(fileURLWithPath: Self.chromium),
      ["--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
       "--user-data-dir=" + folder.appendingPathComponent("profile").path,
       "--virtual-time-budget=20000", "--dump-dom", page.absoluteString + "#" + names.joined(separator: ",")],
      timeout: 120)
    #expect(result.status == 0, "chromium: \(result.stderr.suffix(2000))")
    #expect(result.stdout.contains("DONE"), "the page did not finish: \(result.stdout.suffix(2000))")
    var reported = 0
    // The first result shares its line with the dumped `<pre>` tag; the script's own text, also
    // dumped, has no ` checked=` after a name.
    for dumped in result.stdout.split(separator: "\n") {
      guard let start = dumped.range(of: "RESULT "), dumped.contains(".svg checked=") else { continue }
      let line = dumped[start.lowerBound...]
      reported += 1
      let fields = line.split(separator: " ", maxSplits: 4)
      let checked = Int(fields[2].dropFirst("checked=".count)) ?? 0
      #expect(checked > 100, "\(fields[1]): only \(checked) characters checked")
      #expect(fields[3] == "misplaced=0", "\(line)")
    }
    #expect(reported == names.count, "\(reported) of \(names.count) screenshots were checked")
  }
}
