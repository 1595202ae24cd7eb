import Foundation

/// The value of `X-WOPI-TimeStamp`: a .NET `DateTime.Ticks` count, 100-nanosecond intervals
/// since 0001-01-01T00:00:00Z (online/scenarios/proofkeys.rst).
///
/// It is signed as an 8-byte big-endian integer, never as text.
public struct ProofKeyTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Ticks in one second.
    public static let ticksPerSecond: Int64 = 10_000_000
    /// The ticks of 1970-01-01T00:00:00Z, the Unix epoch.
    public static let unixEpochTicks: Int64 = 621_355_968_000_000_000

    /// 100-nanosecond intervals since 0001-01-01T00:00:00Z.
    public let ticks: Int64

    /// Creates a timestamp from a tick count.
    public init(ticks: Int64) {
        self.ticks = ticks
    }

    /// Reads the decimal text of an `X-WOPI-TimeStamp` header; `nil` unless it is a non-negative
    /// integer that fits in 64 bits (surrounding spaces are allowed).
    public init?(headerValue: String) {
        let trimmed = headerValue.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let ticks = Int64(trimmed)
        else { return nil }
        self.ticks = ticks
    }

    /// The timestamp of a moment, truncated to whole ticks (clamped to the representable range).
    public init(_ date: Date) {
        // Offset from the Unix epoch in a Double (exact to well under a microsecond for current
        // dates), then the epoch added in integer arithmetic so no precision is lost there.
        let sinceEpoch = (date.timeIntervalSince1970 * Double(Self.ticksPerSecond)).rounded(.down)
        let lowest = -Double(Self.unixEpochTicks)
        let highest = Double(Int64.max - Self.unixEpochTicks)
        if !(sinceEpoch > lowest) {
            ticks = 0
        } else if sinceEpoch >= highest {
            ticks = Int64.max
        } else {
            ticks = Int64(sinceEpoch) + Self.unixEpochTicks
        }
    }

    /// The moment this timestamp stands for.
    public var date: Date {
        let sinceEpoch = ticks - Self.unixEpochTicks
        let seconds = sinceEpoch / Self.ticksPerSecond
        let remainder = sinceEpoch % Self.ticksPerSecond
        return Date(timeIntervalSince1970: Double(seconds) + Double(remainder) / Double(Self.ticksPerSecond))
    }

    /// The header text: the tick count in decimal.
    public var headerValue: String { String(ticks) }

    /// The tick count in decimal.
    public var description: String { headerValue }

    /// Orders timestamps by time.
    public static func < (lhs: ProofKeyTimestamp, rhs: ProofKeyTimestamp) -> Bool {
        lhs.ticks < rhs.ticks
    }
}
