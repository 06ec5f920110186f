/// RFC 9110's reason phrases of the common status codes (`404` → `Not Found`): the viewer's
/// status line and the HAR export's `statusText` use the one table.
public enum ReasonPhrases {
  public static func phrase(_ code: Int) -> String? { table[code] }

  public static let table: [Int: String] = [
    100: "Continue", 101: "Switching Protocols", 200: "OK", 201: "Created", 202: "Accepted",
    204: "No Content", 206: "Partial Content", 301: "Moved Permanently", 302: "Found",
    303: "See Other", 304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
    405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
    412: "Precondition Failed", 413: "Content Too Large", 415: "Unsupported Media Type",
    416: "Range Not Satisfiable", 418: "I'm a teapot", 422: "Unprocessable Content",
    429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented",
    502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
  ]
}
