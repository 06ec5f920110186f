import TerminalUI

/// Where each pane goes for a terminal size. Pure: `update` uses it for page sizes and mouse
/// hits, `view` to draw.
///
/// ```
/// ┌Requests┐┌Editor──────────────┐
/// │        │└────────────────────┘
/// │        │┌Response────────────┐
/// └────────┘└────────────────────┘
/// ┌Queue───────────────────────────┐
/// └────────────────────────────────┘
///  status bar
/// ```
public struct Layout: Sendable, Equatable {
  public static let minimumWidth = 60
  public static let minimumHeight = 16

  public var requests: Rect
  public var editor: Rect
  public var response: Rect
  public var queue: Rect
  public var status: Rect
  public var tooSmall: Bool

  public init(width: Int, height: Int) {
    tooSmall = width < Layout.minimumWidth || height < Layout.minimumHeight
    status = Rect(x: 0, y: max(0, height - 1), width: width, height: 1)
    let body = max(0, height - 1)
    let queueHeight = max(5, body * 3 / 10)
    let top = max(0, body - queueHeight)
    let left = min(40, max(22, width * 22 / 100))
    var editorHeight = max(6, top * 2 / 5)
    // A short terminal: the response keeps a summary, its tabs and two lines of body; the
    // editor keeps the resolved URL and one field.
    if top - editorHeight < 6 { editorHeight = max(4, top - 6) }
    requests = Rect(x: 0, y: 0, width: left, height: top)
    editor = Rect(x: left, y: 0, width: max(0, width - left), height: editorHeight)
    response = Rect(x: left, y: editorHeight, width: max(0, width - left), height: max(0, top - editorHeight))
    queue = Rect(x: 0, y: top, width: width, height: queueHeight)
  }

  public func rect(of pane: Pane) -> Rect {
    switch pane {
    case .requests: requests
    case .editor: editor
    case .response: response
    case .queue: queue
    }
  }

  /// The pane under a screen cell.
  public func pane(at x: Int, _ y: Int) -> Pane? {
    Pane.allCases.first { pane in
      let r = rect(of: pane)
      return x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
    }
  }

  /// Rows available inside a pane's border (the response pane also has a tab line).
  public func contentHeight(of pane: Pane) -> Int {
    let inner = max(0, rect(of: pane).height - 2)
    switch pane {
    case .response: return max(0, inner - 2)
    case .queue: return max(0, inner - 1)
    default: return inner
    }
  }
}
