import Crypto
import Foundation
import Testing
@testable import WOPIBlobStoreS3

/// The signer against AWS's published Signature Version 4 test suite (Fixtures/sigv4-test-suite.json names its source).
@Suite("Signature Version 4")
struct SignatureV4Tests {
    struct Suite: Decodable {
        struct Vector: Decodable, CustomTestStringConvertible {
            var name: String
            var method: String
            var path: String
            var query: [[String]]
            var headers: [[String]]
            var body: String
            var canonicalRequest: String?
            var stringToSign: String?
            var authorization: String
            var testDescription: String { name }
        }
        var source: String
        var accessKeyID: String
        var secretAccessKey: String
        var region: String
        var service: String
        var amzDate: String
        var vectors: [Vector]
    }

    static let suite: Suite = {
        let url = Bundle.module.url(forResource: "sigv4-test-suite", withExtension: "json", subdirectory: "Fixtures")!
        return try! JSONDecoder().decode(Suite.self, from: Data(contentsOf: url))
    }()

    @Test("A published vector signs to AWS's Authorization header", arguments: suite.vectors)
    func vector(_ vector: Suite.Vector) throws {
        let suite = Self.suite
        let signer = SignatureV4(credentials: S3Credentials(accessKeyID: suite.accessKeyID, secretAccessKey: suite.secretAccessKey),
                                 region: suite.region, service: suite.service)
        let payloadHash = SHA256.hash(data: Data(vector.body.utf8)).map { String(format: "%02x", $0) }.joined()
        let request = SignatureV4.Request(method: vector.method, path: vector.path,
                                          query: vector.query.map { ($0[0], $0[1]) },
                                          headers: vector.headers.map { ($0[0], $0[1]) }, payloadHash: payloadHash)
        let date = try #require(Self.parse(suite.amzDate))
        #expect(SignatureV4.amzDate(date) == suite.amzDate)
        if let canonical = vector.canonicalRequest { #expect(signer.canonicalRequest(request) == canonical) }
        if let stringToSign = vector.stringToSign { #expect(signer.stringToSign(request, date: date) == stringToSign) }
        #expect(signer.authorization(request, date: date) == vector.authorization)
    }

    @Test("The fixture covers the vectors it is meant to, and names its source")
    func coverage() {
        let names = Set(Self.suite.vectors.map(\.name))
        #expect(names.isSuperset(of: ["get-vanilla", "get-vanilla-query-order-key", "post-x-www-form-urlencoded", "get-utf8", "get-header-value-trim"]))
        #expect(Self.suite.source.contains("aws-sig-v4-test-suite"))
    }

    @Test("Credentials never show their secret")
    func credentialsHideTheSecret() {
        let credentials = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        var dumped = ""
        dump(credentials, to: &dumped)
        for shown in ["\(credentials)", String(reflecting: credentials), dumped] {
            #expect(shown.contains("AKIDEXAMPLE") && !shown.contains("wJalr"), "shown as \(shown)")
        }
    }

    static func parse(_ amzDate: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: amzDate)
    }
}
