import Formats
import Testing
import Workspace

/// The error importing `text` as an OpenAPI (or Swagger 2.0) description named `spec.yaml`
/// fails with; records an issue when it imports.
func openAPIImportError(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> ImportError? {
  do {
    _ = try OpenAPIImporter.parse(Array(text.utf8), file: "spec.yaml")
    Issue.record("expected the import to fail", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}
