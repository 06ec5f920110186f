import Base
import Workspace

extension Formatting {
  /// libjq's report as one line for the status bar: `jq: error: syntax error, unexpected end of
  /// the expression at line 1` — its first line only (not the program echoed back), one `jq:`
  /// prefix, without the hint about shell quoting (there is no shell here).
  public static func jqError(_ raw: String) -> String {
    "jq: " + JQ.summary(raw)
  }
}
