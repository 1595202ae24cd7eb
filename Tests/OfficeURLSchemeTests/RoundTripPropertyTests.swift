import Foundation
import OfficeURLScheme
import Testing

/// A small deterministic generator (SplitMix64) so every run checks the same cases and a failure
/// can be reproduced from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random values biased towards the characters the encoding rules treat specially.
struct ValueFactory {
    var rng: SeededGenerator
    static let tricky: [Character] = ["|", "%", ":", "/", " ", "#", "?", "&", "=", "+", "\"", "<", ">", "\\", "^", "`", "{", "}",
                                      "[", "]", "~", "@", "!", "'", "(", ")", "*", ",", ";", "$", "\t", "\n", "ä", "€", "中", "😀", "7", "C"]
    static let plain = Array("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-._")

    mutating func text(maxLength: Int = 12) -> String {
        let length = Int.random(in: 0...maxLength, using: &rng)
        return String((0..<length).map { _ in
            Bool.random(using: &rng) ? Self.tricky.randomElement(using: &rng)! : Self.plain.randomElement(using: &rng)!
        })
    }

    mutating func maybe(_ make: (inout Self) -> String) -> String? {
        Bool.random(using: &rng) ? make(&self) : nil
    }

    mutating func httpURL(host: String? = nil) -> String {
        let scheme = Bool.random(using: &rng) ? "https" : "http"
        let h = host ?? ["contoso", "fabrikam.com", "127.0.0.1:8080", "h"].randomElement(using: &rng)!
        var path = ""
        for _ in 0..<Int.random(in: 0...3, using: &rng) { path += "/" + text(maxLength: 6) }
        return "\(scheme)://\(h)\(path)"
    }

    mutating func fileName() -> String {
        let allowed = Array("abc XYZ-_.ä€() ,;'!@")
        let length = Int.random(in: 1...10, using: &rng)
        return String((0..<length).map { _ in allowed.randomElement(using: &rng)! }) + ".docx"
    }

    mutating func scheme() -> String {
        "x" + String((0..<Int.random(in: 0...8, using: &rng)).map { _ in Array("az09+-.").randomElement(using: &rng)! })
    }

    mutating func invoke() throws -> OfficeInvokeURI {
        let app = OfficeApp.allCases.filter(\.supportsNewFromTemplate).randomElement(using: &rng)!
        let command = OfficeCommand.allCases.randomElement(using: &rng)!
        let url = httpURL(host: "contoso")
        let extras = try (0..<Int.random(in: 0...2, using: &rng)).map { index in
            try OfficeURIArgument(descriptor: ["x", "q", "zz", "k9"][index], value: text())
        }
        return try OfficeInvokeURI(
            app: app, command: command, documentURL: url,
            saveLocation: command == .newFromTemplate ? maybe { $0.httpURL(host: "contoso") } : nil,
            service: maybe { $0.text() }, user: maybe { $0.text() }, fileName: maybe { $0.fileName() },
            source: Bool.random(using: &rng) ? InvocationSource.allCases.randomElement(using: &rng) : nil,
            passbackScheme: maybe { $0.scheme() }, context: maybe { $0.text(maxLength: 30) }, extraArguments: extras)
    }
}

@Suite struct RoundTripPropertyTests {
    @Test(arguments: [UInt64(1), 2, 3, 42, 2024])
    func invokeRoundTripsThroughBothForms(seed: UInt64) throws {
        var factory = ValueFactory(rng: SeededGenerator(seed: seed))
        for _ in 0..<300 {
            let value = try factory.invoke()
            #expect(try OfficeInvokeURI(string: value.string) == value, "raw: \(value.string)")
            #expect(try OfficeInvokeURI(string: value.percentEncodedString) == value, "encoded: \(value.percentEncodedString)")
            // Our percent-encoded form is what this Foundation makes of the raw string, except that
            // Foundation keeps existing escapes after a '?' or '#' (see foundationKeepsEscapesInQueries).
            if !value.string.contains("?"), !value.string.contains("#") {
                #expect(URL(string: value.string)?.absoluteString == value.percentEncodedString, "raw: \(value.string)")
            }
            #expect(try OfficeInvokeURI(url: value.url) == value)
        }
    }

    @Test(arguments: [UInt64(7), 99])
    func passbackRoundTrips(seed: UInt64) throws {
        var factory = ValueFactory(rng: SeededGenerator(seed: seed))
        for _ in 0..<300 {
            let value = try OfficePassback(
                scheme: factory.scheme(), documentURL: factory.httpURL(),
                uploadPending: [true, false, nil].randomElement(using: &factory.rng)!,
                context: factory.maybe { $0.text(maxLength: 30) })
            #expect(try OfficePassback(string: value.string) == value, "raw: \(value.string)")
            #expect(try OfficePassback(url: value.url) == value, "encoded: \(value.percentEncodedString)")
        }
    }

    @Test(arguments: [UInt64(5), 11])
    func signInRoundTrips(seed: UInt64) throws {
        var f = ValueFactory(rng: SeededGenerator(seed: seed))
        for _ in 0..<200 {
            let request = try SignInRequest(scheme: f.scheme(), clientID: f.text(), scope: f.maybe { $0.text() },
                                            culture: f.maybe { $0.text() }, build: f.maybe { $0.text() },
                                            officeApp: ["word", "excel", "powerpoint", "officemobile"].randomElement(using: &f.rng)!,
                                            action: f.maybe { $0.text() })
            #expect(try SignInRequest(string: request.string) == request, "\(request.string)")
            #expect(try SignInRequest(url: request.url) == request)
            let response = Bool.random(using: &f.rng)
                ? try request.response(code: f.text(), tokenEndpoint: f.maybe { $0.httpURL() }, sessionContext: f.maybe { $0.text() })
                : try request.errorResponse(OAuthAuthorizationError(code: f.text(), description: f.maybe { $0.text() }, uri: f.maybe { $0.httpURL() }))
            #expect(try SignInResponse(string: response.string) == response, "\(response.string)")
            #expect(try SignInResponse(url: response.url) == response)
        }
    }

    /// Why the library builds its own percent-encoded form: Foundation keeps a query that holds no
    /// invalid character as it is, `%7C` included, so decoding its string once turns an escaped '|'
    /// in the last value into a delimiter.
    @Test func foundationKeepsEscapesInQueries() throws {
        let invoke = try OfficeInvokeURI(app: .word, documentURL: "https://h/f", context: "?a|b")
        #expect(invoke.string == "ms-word:ofe|u|https://h/f|c|?a%7Cb")
        let foundation = try #require(URL(string: invoke.string)?.absoluteString)
        #expect(foundation == "ms-word:ofe%7Cu%7Chttps%3A//h/f%7Cc%7C?a%7Cb")
        #expect(invoke.percentEncodedString == "ms-word:ofe%7Cu%7Chttps%3A//h/f%7Cc%7C?a%257Cb")
        #expect(try OfficeInvokeURI(url: invoke.url).context == "?a|b")
        // Foundation's string is ambiguous: the escaped '|' now reads as a delimiter.
        #expect(throws: OfficeURLError.missingArgumentValue(descriptor: "b")) { try OfficeInvokeURI(string: foundation) }
    }

    @Test func parsersNeverCrashOnRandomInput() {
        var f = ValueFactory(rng: SeededGenerator(seed: 31337))
        let prefixes = ["", "ms-word:", "ms-word:ofe|", "ms-word:ofe%7C", "ms-excel:https:", "x:", "ms-word-tp:", "contoso:client_id="]
        for _ in 0..<2000 {
            let input = prefixes.randomElement(using: &f.rng)! + f.text(maxLength: 40)
            // Each either parses or throws an OfficeURLError with a one-line description.
            do { _ = try OfficeURLMessage(string: input) } catch { #expect(!error.description.contains("\n")) }
            _ = try? BootstrapperChallenge(headerValue: "Bearer " + input)
        }
    }
}
