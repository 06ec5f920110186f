import CJQ
import Foundation

/// jq expressions over JSON bodies, through libjq: the response viewer's `|` filter and chain
/// captures.
///
/// ```swift
/// try JQ.run(".users[0].name", input: body)  // "\"Ada\"\n"
/// ```
public enum JQ {
  public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
  }

  /// The program's outputs, one JSON text per line (pretty-printed when `pretty`).
  public static func run(_ program: String, input: [UInt8], pretty: Bool = true) throws(Failure) -> String {
    try run(program, input: input, pretty: pretty, pieceSize: 0)
  }

  /// `run`, feeding libjq `pieceSize` bytes at a time (0: 1 GiB, the most it takes at once).
  static func run(_ program: String, input: [UInt8], pretty: Bool, pieceSize: Int) throws(Failure) -> String {
    var output: UnsafeMutablePointer<CChar>?
    // The shim reads exactly `count` bytes (in pieces libjq's int lengths can hold, so bodies over
    // 2 GiB parse too) and no copy is made; an empty input still needs a valid pointer.
    let empty: [CChar] = [0]
    let status = input.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { chars in
        empty.withUnsafeBufferPointer { fallback in
          rb_jq_run_pieces(
            program, chars.baseAddress ?? fallback.baseAddress, input.count, pretty ? 1 : 0, pieceSize, &output)
        }
      }
    }
    let text = output.map { String(cString: $0) } ?? ""
    free(output)
    if status != 0 { throw Failure(message: text.isEmpty ? "jq failed" : clean(text)) }
    return text
  }

  /// The program, compiled once, over each input in turn (a stream's events): each input's
  /// outputs (compact JSON, one a line), or why it failed on that input (not JSON, a jq error).
  /// Throws only when the program does not compile.
  public static func runEach(_ program: String, inputs: [String]) throws(Failure) -> [Result<String, Failure>] {
    try Program(program).runEach(inputs)
  }

  /// Compiles `program` without running it: a chain's captures are checked when the workspace
  /// is read.
  public static func compile(_ program: String) throws(Failure) {
    var output: UnsafeMutablePointer<CChar>?
    let status = rb_jq_compile(program, &output)
    let text = output.map { String(cString: $0) } ?? ""
    free(output)
    if status != 0 { throw Failure(message: text.isEmpty ? "the jq expression does not compile" : clean(text)) }
  }

  /// jq's report as one line: its first line only (not the program echoed back), without the
  /// `jq:` prefix and the hint about shell quoting: `error: syntax error, unexpected '|' at line 1`.
  public static func summary(_ raw: String) -> String {
    var line = raw.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    line = line.trimmingCharacters(in: .whitespaces)
    while line.hasPrefix("jq:") { line = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces) }
    line = clean(line)
    line = line.replacingOccurrences(of: " at <top-level>, line ", with: " at line ")
    line = line.replacingOccurrences(of: "unexpected $end", with: "unexpected end of the expression")
    if line.hasSuffix(":") { line.removeLast() }
    return line.isEmpty ? "the expression failed" : line
  }

  /// jq's message without its hint for shells ("(Unix shell quoting issues?)"): reqbench's
  /// expressions never pass through one.
  static func clean(_ message: String) -> String {
    message.replacingOccurrences(of: " (Unix shell quoting issues?)", with: "")
  }
}

extension JQ {
  /// A jq program compiled once (libjq's compile of the builtins takes milliseconds), run over
  /// many inputs: the TUI keeps one while jq runs over each event of a stream, so the events
  /// that come later cost only their own run. Runs one call at a time (a lock), on any thread.
  ///
  /// A lock rather than `Mutex<OpaquePointer>`: the program is passed to libjq with pointers into
  /// the inputs' buffer, and Swift's region checking will not let a Mutex's value meet them.
  public final class Program: @unchecked Sendable {
    public let source: String
    private let handle: OpaquePointer
    private let lock = NSLock()

    public init(_ source: String) throws(Failure) {
      var error: UnsafeMutablePointer<CChar>?
      guard let handle = rb_jq_program_new(source, &error) else {
        let text = error.map { String(cString: $0) } ?? ""
        free(error)
        throw Failure(message: text.isEmpty ? "the jq expression does not compile" : JQ.clean(text))
      }
      self.source = source
      self.handle = handle
    }

    deinit { rb_jq_program_free(handle) }

    /// Each input's outputs (compact JSON, one a line), or why it failed on that input.
    public func runEach(_ inputs: [String]) -> [Result<String, Failure>] {
      guard !inputs.isEmpty else { return [] }
      // One buffer for every input, and each input's start in it.
      var bytes: [UInt8] = []
      bytes.reserveCapacity(inputs.reduce(0) { $0 + $1.utf8.count } + 1)
      var starts: [Int] = []
      var lengths: [Int] = []
      for input in inputs {
        starts.append(bytes.count)
        lengths.append(input.utf8.count)
        bytes.append(contentsOf: input.utf8)
      }
      bytes.append(0)
      var output: UnsafeMutablePointer<CChar>?
      lock.lock()
      bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { chars in
          guard let base = chars.baseAddress else { return }
          let pointers: [UnsafePointer<CChar>?] = starts.map { base + $0 }
          pointers.withUnsafeBufferPointer { list in
            lengths.withUnsafeBufferPointer { sizes in
              _ = rb_jq_program_each(handle, list.baseAddress, sizes.baseAddress, inputs.count, &output)
            }
          }
        }
      }
      lock.unlock()
      let text = output.map { String(cString: $0) } ?? ""
      free(output)
      var results: [Result<String, Failure>] = []
      results.reserveCapacity(inputs.count)
      for record in text.split(separator: "\u{1E}", omittingEmptySubsequences: false).prefix(inputs.count) {
        let body = String(record.dropFirst())
        results.append(record.first == "o" ? .success(body) : .failure(Failure(message: JQ.clean(body))))
      }
      while results.count < inputs.count { results.append(.failure(Failure(message: "jq gave no answer"))) }
      return results
    }
  }
}
