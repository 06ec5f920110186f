// The JSON target's types (JSONValue, JSONParser, JSONSerializer, JSONTextEditor, JSONPath) are
// part of the engine's API (request bodies, validators): a program that imports RequestEngine
// has them.
@_exported import JSON
