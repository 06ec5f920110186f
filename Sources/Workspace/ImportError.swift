import RequestEngine

/// Why a curl command, an `.http` file or a Postman collection could not be imported: what is
/// wrong and where.
///
/// ```text
/// requests.sh:3:8: -F "f=@/tmp/a.png": "/tmp/a.png" is absolute; paths are relative to the workspace's folder; copy the file into the workspace's folder and write its path relative to that folder
/// api.http:12:1: expected a header "Name: value" or a blank line before the body
/// collection.json:40:17: request "users/upload": the form-data file "f" has no file chosen ("src"); choose one in Postman, or remove the entry
/// ```
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The input as the user named it (`<stdin>` for `-`).
  public var file: String
  /// Where in the input (`SourceLocation.start` when nothing in it was usable: an empty paste).
  public var location: SourceLocation?
  /// What is wrong, and what to do about it.
  public var message: String

  public init(file: String, location: SourceLocation?, message: String) {
    self.file = file
    self.location = location
    self.message = message
  }

  /// `FILE:LINE:COLUMN: message`, or `FILE: message`.
  public var description: String {
    "\(file):\(location.map { "\($0):" } ?? "") \(message)"
  }
}
