/// A value's fields kept behind one reference: copying the value copies the reference, and the
/// first change through a copy that shares it copies the fields (as Array and String do).
/// `Request` (about 550 bytes of fields) and `ExchangeResult` (about 1 KB) keep theirs here: they
/// travel from the caller to the engine thread and back through events to `run`, the TUI and
/// the history writer, copied at each step, and each copy was a memcpy and a retain per field.
///
/// The box is only changed through `value`'s `_modify`, after a uniqueness check, so a box two
/// values share is never changed: that is why it can be `@unchecked Sendable`.
struct CopyOnWrite<Value: Sendable>: @unchecked Sendable {
  private final class Box {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  private var box: Box

  init(_ value: Value) {
    box = Box(value)
  }

  var value: Value {
    _read { yield box.value }
    _modify {
      if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
      yield &box.value
    }
  }
}

extension CopyOnWrite: Equatable where Value: Equatable {
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.box === rhs.box || lhs.box.value == rhs.box.value
  }
}
