import Foundation
import Testing
import WOPICore

/// Microsoft's proof-key test vectors: figures from the proof-key samples of Microsoft's WOPI documentation
/// (Office-Online-Test-Tools-and-Documentation, `samples/python/proof_keys/tests.py`, MIT licence), kept as
/// data in `Resources/proof-key-vectors.json`; its `source` field names the exact file and commit.
struct ProofKeyVectors: Decodable {
    struct Discovery: Decodable {
        var value: String
        var modulus: String
        var exponent: String
        var oldvalue: String
        var oldmodulus: String
        var oldexponent: String
    }

    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var accessToken: String
        var timestamp: Int64
        var url: String
        var proof: String
        var proofOld: String
        var expectedValid: Bool

        var testDescription: String { name }
    }

    var discovery: Discovery
    var cases: [Case]

    /// The vectors file, a resource of this test target.
    static let url: URL? = Bundle.module.url(forResource: "proof-key-vectors", withExtension: "json")

    /// Loads the vectors; a missing or unreadable file is a test failure, never a skip.
    static func load() throws -> ProofKeyVectors {
        let url = try #require(Self.url, "proof-key-vectors.json is missing from the WOPICoreTests resources")
        let data = try Data(contentsOf: url)
        return try JSONDecoder().decode(ProofKeyVectors.self, from: data)
    }

    /// The discovery keys as a `proof-key` element inside a minimal discovery document.
    var discoveryXML: String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <wopi-discovery>
          <net-zone name="external-https">
            <app name="Word" favIconUrl="https://example.invalid/word.ico">
              <action name="edit" ext="docx" urlsrc="https://example.invalid/we/wordeditorframe.aspx?&lt;ui=UI_LLCC&amp;&gt;"/>
            </app>
          </net-zone>
          <proof-key oldvalue="\(discovery.oldvalue)" oldmodulus="\(discovery.oldmodulus)" oldexponent="\(discovery.oldexponent)" value="\(discovery.value)" modulus="\(discovery.modulus)" exponent="\(discovery.exponent)"/>
        </wopi-discovery>
        """
    }

    /// The case loaded by name, so tests can pick specific vectors.
    func `case`(named name: String) throws -> Case {
        try #require(cases.first { $0.name == name }, "vector \(name) missing from proof-key-vectors.json")
    }
}

/// RSA keys are slow to generate, so tests share one set, made once per test run.
enum TestSigners {
    /// Signs like Office before a rotation: one key, no old key.
    static let beforeRotation: Result<ProofKeySigner, ProofKeyError> = Result { () throws(ProofKeyError) in
        try ProofKeySigner.generate()
    }

    /// The same client after rotating: a new current key, `beforeRotation`'s key as the old one.
    static let afterRotation: Result<ProofKeySigner, ProofKeyError> = Result { () throws(ProofKeyError) in
        try beforeRotation.get().rotated()
    }

    /// An unrelated client whose signatures nobody should accept.
    static let stranger: Result<ProofKeySigner, ProofKeyError> = Result { () throws(ProofKeyError) in
        try ProofKeySigner.generate()
    }
}
