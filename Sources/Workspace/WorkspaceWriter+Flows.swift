import RequestEngine

// Batches and chains written back into the objects they were read from, as `ObjectWriter` does
// for requests (see WorkspaceWriter.swift): a value that still reads as the model's is left as
// the file spells it.
extension Batch {
  var json: JSONValue {
    var w = ObjectWriter(source)
    w.write("name", name, read: { $0.nonEmptyString($1, $2) }, encode: { v, _ in .string(v) })
    w.write(
      "members", members,
      read: { r, v, p in r.array(v, p)?.compactMap { r.string($0, p) } },
      encode: { v, _ in .array(v.map { .string($0) }) })
    w.write(
      "policy", policy, default: .failFast,
      read: { r, v, p in r.string(v, p).flatMap(Batch.Policy.init(rawValue:)) },
      encode: { v, _ in .string(v.rawValue) })
    w.write(
      "concurrency", concurrency, default: 4, read: { $0.int($1, $2, atLeast: 1) },
      encode: { v, _ in .number(v) })
    return .object(w.object)
  }
}

extension Chain {
  var json: JSONValue {
    var w = ObjectWriter(source)
    w.write("name", name, read: { $0.nonEmptyString($1, $2) }, encode: { v, _ in .string(v) })
    w.object["steps"] = .array(steps.map(\.json))
    w.write(
      "onFailure", onFailure, default: .stop,
      read: { r, v, p in r.string(v, p).flatMap(Chain.OnFailure.init(rawValue:)) },
      encode: { v, _ in .string(v.rawValue) })
    return .object(w.object)
  }
}

extension ChainStep {
  /// A capture or a step variable as the writer compares it.
  private struct Entry: Equatable {
    var name: String
    var text: String
  }

  var json: JSONValue {
    var w = ObjectWriter(source)
    w.write("request", request, read: { $0.nonEmptyString($1, $2) }, encode: { v, _ in .string(v) })
    w.write(
      "capture", capture.map { Entry(name: $0.name, text: $0.source.text) }, default: [],
      read: { r, v, p in
        r.object(v, p)?.members.compactMap { member in
          r.string(member.value, p).map { Entry(name: member.key, text: Capture($0).text) }
        }
      },
      encode: { entries, old in
        var object = JSONObject()
        for entry in entries {
          // A capture spelled differently in the file (`header: ETag`) keeps its spelling.
          if let previous = old?[entry.name]?.stringValue, Capture(previous).text == entry.text {
            object[entry.name] = .string(previous)
          } else {
            object[entry.name] = .string(entry.text)
          }
        }
        return .object(object)
      })
    w.write(
      "vars", vars.map { Variable(name: $0.name, value: $0.value) }, default: [],
      read: { $0.variables($1, $2) }, encode: { $0.json(merging: $1) })
    return .object(w.object)
  }
}
