/// Conversions that cannot trap, for numbers a server or a file controls (a `Content-Length` of
/// 9e18, a timeout of 1e16 s, an ETA from both): `Int(_: Double)` traps outside Int's range, and
/// `+` or `*` on two such values can overflow. These clamp instead.
///
/// ```swift
/// Int(saturating: 1e300)        // Int.max
/// Int(saturating: .nan)         // 0
/// Int64(9e18).addingSaturating(9e18 as Int64)  // Int64.max
/// ```
///
/// `@inlinable` so that callers in other modules get them specialized for their type: through the
/// generic entry point one conversion cost about 3,000 instructions (two for each line `run`
/// prints).
extension BinaryInteger where Self: FixedWidthInteger {
  /// `value` rounded toward zero, clamped to the type's range; NaN is 0.
  @inlinable
  public init(saturating value: Double) {
    if value.isNaN {
      self = 0
    } else if value >= Double(Self.max) {
      // Double(Self.max) rounds up to 2^63 for Int64: anything at or above it is out of range.
      self = Self.max
    } else if value <= Double(Self.min) {
      self = Self.min
    } else {
      self = Self(value)
    }
  }

  /// `self + other`, clamped to the type's range instead of overflowing.
  @inlinable
  public func addingSaturating(_ other: Self) -> Self {
    let (sum, overflow) = addingReportingOverflow(other)
    guard overflow else { return sum }
    return other > 0 ? Self.max : Self.min
  }

  /// `self * other`, clamped to the type's range instead of overflowing.
  @inlinable
  public func multipliedSaturating(by other: Self) -> Self {
    let (product, overflow) = multipliedReportingOverflow(by: other)
    guard overflow else { return product }
    return (self < 0) == (other < 0) ? Self.max : Self.min
  }
}
