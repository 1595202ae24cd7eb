import Foundation

/// Comparisons whose duration does not depend on where two secrets differ.
public enum ConstantTime {
    /// Whether `a` and `b` are equal, looking at every byte of both regardless of the first difference.
    public static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        var ai = a.makeIterator(), bi = b.makeIterator()
        for _ in 0..<max(a.count, b.count) {
            difference |= (ai.next() ?? 0) ^ (bi.next() ?? 0)
        }
        return difference == 0
    }

    /// Whether two strings are equal byte for byte, in constant time.
    public static func equal(_ a: String, _ b: String) -> Bool { equal(Array(a.utf8), Array(b.utf8)) }
}
