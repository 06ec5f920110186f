/// Conversions from a `Double` a file or a server controls (a timeout, a stored date, a length)
/// to an integer that never trap: `Int(x)` traps when `x` is NaN, infinite or out of range, and
/// such values reach reqbench through state files and headers however carefully the workspace
/// file is checked. Rounded toward zero, held at the type's bounds, NaN as 0.
extension Int {
  public init(saturating value: Double) {
    if value.isNaN {
      self = 0
    } else if value >= 9.223_372_036_854_775_807e18 {
      self = .max
    } else if value <= -9.223_372_036_854_775_808e18 {
      self = .min
    } else {
      self = Int(value)
    }
  }
}

extension Int64 {
  public init(saturating value: Double) {
    self = Int64(Int(saturating: value))
  }
}
