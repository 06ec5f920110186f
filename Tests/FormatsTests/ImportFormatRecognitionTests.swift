import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// A file given to the importer of another format says what it is and which command reads it.
@Suite("Import: a file of another format")
struct ImportFormatRecognitionTests {
  func message(_ format: ImportFormat, _ text: String) -> String? {
    do {
      _ = try format.parse(Array(text.utf8), file: "input")
      return nil
    } catch {
      return error.description
    }
  }

  static let inputs: [(ImportFormat, String)] = [
    (.bruno, "meta {\n  name: x\n}\n\nget {\n  url: https://a.test\n}\n"),
    (.insomnia, #"{"_type": "export", "__export_format": 4, "resources": []}"#),
    (.insomnia, "type: collection.insomnia.rest/5.0\nname: x\ncollection: []\n"),
    (.postman, #"{"info": {"name": "x", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"}, "item": []}"#),
    (.har, #"{"log": {"version": "1.2", "entries": []}}"#),
    (.openapi, "openapi: 3.0.0\ninfo:\n  title: x\n  version: '1'\npaths: {}\n"),
    (.curl, "curl https://a.test/x\n"),
  ]

  @Test func eachFormatGivenToAnotherImporterIsNamed() {
    for (format, text) in Self.inputs {
      #expect(ImportFormat.recognize(Array(text.utf8)) == format, "\(text)")
      for other in ImportFormat.allCases where other != format {
        guard let message = message(other, text) else { continue }  // read anyway (httpie of a curl line…)
        #expect(message.hasSuffix("read it with reqbench import \(format.rawValue)"), "\(other) of \(format): \(message)")
      }
    }
  }

  @Test func aBruFileGivenToTheHTTPImporter() {
    #expect(
      message(.http, "meta {\n  name: x\n}\n\nget {\n  url: https://a.test\n}\n")
        == "input: this is a Bruno request file, not an .http file; read it with reqbench import bruno")
  }
}
