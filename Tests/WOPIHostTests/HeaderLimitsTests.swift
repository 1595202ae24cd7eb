import Testing
@testable import WOPIHost

/// The limits on request headers the host enforces before routing.
@Suite struct HeaderLimitsTests {
    @Test("header limits: 8 KiB per field and 32 KiB per block by default")
    func headerLimits() {
        let limits = HeaderLimits.standard
        #expect(limits.problem([("Host", "x")]) == nil)
        #expect(limits.problem([("X-Big", String(repeating: "a", count: 8 * 1024))])?.contains("X-Big") == true)
        let many = (0..<5).map { ("X-\($0)", String(repeating: "b", count: 7 * 1024)) }
        #expect(limits.problem(many)?.contains("request headers") == true)
        #expect(HeaderLimits(maximumFieldSize: 0) == nil)
    }
}
