import Base
import Foundation
import Testing
import Workbench

/// Sizes and durations as the queue, the viewer and `run` print them.
@Suite("Formatting")
struct FormattingTests {
  @Test func decimalsRoundToTheirPlaces() {
    #expect(Formatting.decimal(0, places: 1) == "0.0")
    #expect(Formatting.decimal(0.04, places: 1) == "0.0")
    #expect(Formatting.decimal(0.05, places: 1) == "0.1")
    #expect(Formatting.decimal(3.14159, places: 2) == "3.14")
    #expect(Formatting.decimal(1.005, places: 0) == "1")
    #expect(Formatting.decimal(9.99, places: 1) == "10.0")
    #expect(Formatting.decimal(12_345.678, places: 3) == "12345.678")
    #expect(Formatting.decimal(0.007, places: 3) == "0.007")
    #expect(Formatting.decimal(-2.5, places: 1) == "-2.5")
    #expect(Formatting.decimal(-0.01, places: 1) == "0.0", "no minus sign on a value that rounds to zero")
    #expect(Formatting.decimal(42, places: 0) == "42")
  }

  @Test func hugeAndOddValuesSaturateInsteadOfTrapping() {
    #expect(Formatting.decimal(1e300, places: 2) == "92233720368547758.07")
    #expect(Formatting.decimal(.infinity, places: 1).hasPrefix("922337203685477580"))
    #expect(Formatting.decimal(.nan, places: 1) == "0.0")
    #expect(Formatting.decimal(1.5, places: 40) == "1.500000000", "places are capped at 9")
  }

  @Test func sizesAndDurations() {
    #expect(Formatting.bytes(0) == "0 B")
    #expect(Formatting.bytes(1023) == "1023 B")
    #expect(Formatting.bytes(1024) == "1.0 KB")
    #expect(Formatting.bytes(1536) == "1.5 KB")
    #expect(Formatting.bytes(5 << 20) == "5.0 MB")
    #expect(Formatting.bytes(3 << 30) == "3.00 GB")
    #expect(Formatting.milliseconds(0.25) == "0.3 ms")
    #expect(Formatting.milliseconds(412.34) == "412.3 ms")
    #expect(Formatting.milliseconds(11_000) == "11.00 s")
    #expect(Formatting.milliseconds(3 * 86_400_000) == "3 d")
  }

  @Test func cookieExpiriesReadAsPeopleSayThem() {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    #expect(Formatting.cookieExpiry(0, now: now) == "session")
    #expect(Formatting.cookieExpiry(1_799_999_000, now: now) == "expired")
    #expect(Formatting.cookieExpiry(1_800_000_000 + 12 * 86_400, now: now) == "in 12 d")
    #expect(Formatting.cookieExpiry(1_800_000_000 + 30 * 31_557_600, now: now) == "in 30 y")
    #expect(Formatting.cookieExpiry(Int64.max, now: now) == "far future")
    #expect(Formatting.cookieExpiryDate(Int64.max) == "9999-12-31, far future")
    #expect(Formatting.cookieExpiryDate(Formatting.lastWrittenDate) == "9999-12-31 23:59")
    #expect(Formatting.cookieExpiryDate(0) == nil)
  }
}
