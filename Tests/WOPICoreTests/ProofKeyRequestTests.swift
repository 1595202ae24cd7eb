import Foundation
import Testing
import WOPICore

/// The exact signed bytes and the .NET tick timestamps.
@Suite("ProofKeyRequest and ProofKeyTimestamp")
struct ProofKeyRequestTests {
    @Test("signed bytes: length-prefixed token, upper-cased URL, then 8 and the ticks, all big-endian")
    func signedBytesLayout() {
        let request = ProofKeyRequest(
            accessToken: "tök",
            url: "https://h/a?b=c",
            timestamp: ProofKeyTimestamp(ticks: 0x0102_0304_0506_0708)
        )
        let expected: [UInt8] =
            [0, 0, 0, 4] + Array("tök".utf8)
            + [0, 0, 0, 15] + Array("HTTPS://H/A?B=C".utf8)
            + [0, 0, 0, 8] + [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(request.signedBytes == expected)
    }

    @Test("the URL length counts the bytes of the upper-cased UTF-8 URL")
    func nonASCIIURLLength() {
        let request = ProofKeyRequest(accessToken: "", url: "https://h/é", timestamp: ProofKeyTimestamp(ticks: 0))
        let bytes = request.signedBytes
        let urlBytes = Array("HTTPS://H/É".utf8)
        #expect(Array(bytes[0..<4]) == [0, 0, 0, 0])
        #expect(Array(bytes[4..<8]) == [0, 0, 0, UInt8(urlBytes.count)])
        #expect(Array(bytes[8..<(8 + urlBytes.count)]) == urlBytes)
    }

    @Test(
        "upper-casing maps one character to one, like .NET's ToUpperInvariant",
        arguments: [
            ("https://contoso.com/wopi/files/abc?access_token=x%2fy", "HTTPS://CONTOSO.COM/WOPI/FILES/ABC?ACCESS_TOKEN=X%2FY"),
            ("https://h/ünïcode-ÿ", "HTTPS://H/ÜNÏCODE-Ÿ"),
            ("https://h/straße", "HTTPS://H/STRAßE"),  // ß has no single upper-case letter
            ("https://h/ﬁle", "HTTPS://H/ﬁLE"),  // nor has the ligature
            ("https://h/ıi", "HTTPS://H/II"),  // invariant culture: no Turkish rules
            ("https://h/σς", "HTTPS://H/ΣΣ"),
        ]
    )
    func uppercasedInvariant(input: String, expected: String) {
        #expect(ProofKeyRequest.uppercasedInvariant(input) == expected)
        #expect(ProofKeyRequest.uppercasedInvariant(input).unicodeScalars.count == input.unicodeScalars.count)
    }

    @Test("ticks count 100 ns since 0001-01-01: the Unix epoch and a known instant")
    func ticksAndDates() {
        #expect(ProofKeyTimestamp(Date(timeIntervalSince1970: 0)).ticks == 621_355_968_000_000_000)
        // 2025-01-01T00:00:00Z, as DateTime(2025, 1, 1).Ticks in .NET.
        #expect(ProofKeyTimestamp(Date(timeIntervalSince1970: 1_735_689_600)).ticks == 638_712_864_000_000_000)
        let timestamp = ProofKeyTimestamp(ticks: 638_712_864_123_456_789)
        #expect(ProofKeyTimestamp(timestamp.date).ticks / 10 == timestamp.ticks / 10)  // Date keeps µs
        // One of Microsoft's vectors: signed on 2015-04-25.
        let vectorDate = ProofKeyTimestamp(ticks: 635_655_897_610_773_532).date
        #expect(abs(vectorDate.timeIntervalSince1970 - 1_429_992_961.077) < 0.001)
    }

    @Test("dates outside the tick range clamp instead of trapping")
    func clamping() {
        #expect(ProofKeyTimestamp(Date(timeIntervalSince1970: -1e12)).ticks == 0)
        #expect(ProofKeyTimestamp(Date(timeIntervalSince1970: 1e13)).ticks == .max)
        #expect(ProofKeyTimestamp(Date.distantFuture) > ProofKeyTimestamp(Date()))
    }

    @Test("header values: decimal ticks only", arguments: [
        ("635655897610773532", Optional<Int64>.some(635_655_897_610_773_532)),
        (" 42 ", 42),
        ("0", 0),
        ("", nil), ("-1", nil), ("+1", nil), ("1.5", nil), ("0x10", nil), ("abc", nil),
        ("99999999999999999999", nil), ("١٢٣", nil),
    ])
    func headerValues(text: String, ticks: Int64?) {
        #expect(ProofKeyTimestamp(headerValue: text)?.ticks == ticks)
    }

    @Test("the header value round-trips")
    func headerRoundTrip() {
        let timestamp = ProofKeyTimestamp(ticks: 638_712_864_123_456_789)
        #expect(timestamp.headerValue == "638712864123456789")
        #expect(ProofKeyTimestamp(headerValue: timestamp.headerValue) == timestamp)
    }

    @Test("proof headers list their names in order")
    func headerFields() {
        let headers = ProofKeyHeaders(timestamp: ProofKeyTimestamp(ticks: 7), proof: "p", proofOld: "o")
        #expect(headers.fields.map(\.name) == ["X-WOPI-TimeStamp", "X-WOPI-Proof", "X-WOPI-ProofOld"])
        #expect(headers.fields.map(\.value) == ["7", "p", "o"])
    }
}
