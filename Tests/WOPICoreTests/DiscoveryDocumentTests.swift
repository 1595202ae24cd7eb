import Foundation
import Testing
import WOPICore

/// Reading and writing discovery XML, and the CSP key blob inside it.
@Suite("DiscoveryDocument and ProofKey")
struct DiscoveryDocumentTests {
    @Test("reads Microsoft's keys and actions from discovery XML")
    func readsVectorDiscovery() throws {
        let vectors = try ProofKeyVectors.load()
        let document = try DiscoveryDocument(xml: vectors.discoveryXML)
        let keys = try #require(document.proofKeys)
        #expect(keys.current.base64Modulus == vectors.discovery.modulus)
        #expect(keys.current.base64Exponent == "AQAB")
        #expect(try #require(keys.old).base64Modulus == vectors.discovery.oldmodulus)
        #expect(document.actions == [
            .init(
                netZone: "external-https",
                appName: "Word",
                name: "edit",
                fileExtension: "docx",
                urlSource: "https://example.invalid/we/wordeditorframe.aspx?<ui=UI_LLCC&>",
                favIconURL: "https://example.invalid/word.ico"
            ),
        ])
    }

    @Test("a generated key pair written as discovery XML reads back as the same keys")
    func roundTrip() throws {
        let signer = try TestSigners.afterRotation.get()
        let action = DiscoveryDocument.Action(appName: "Excel", name: "view", fileExtension: "xlsx", urlSource: "https://x.invalid/v?a=1&b=\"2\"")
        let written = signer.discoveryDocument(actions: [action])
        let xml = written.xmlString
        #expect(xml.contains("<proof-key oldvalue=\""))
        #expect(xml.contains(" value=\"BgIAAACkAABSU0Ex"))  // PUBLICKEYBLOB, CALG_RSA_KEYX, "RSA1"
        let read = try DiscoveryDocument(xml: xml)
        #expect(read == written)
        #expect(read.proofKeys == signer.proofKeys)
        // And the keys read back verify what the signer signs.
        let request = ProofKeyRequest(accessToken: "t", url: "https://h/wopi/files/1?access_token=t", timestamp: ProofKeyTimestamp(Date()))
        let headers = try signer.sign(request)
        let verifier = ProofKeyVerifier(keys: try #require(read.proofKeys))
        #expect(verifier.verify(request, proof: headers.proof, proofOld: headers.proofOld) == .valid(.proofWithCurrentKey))
    }

    @Test("a document without old key attributes has no old key; one with only CSP blobs still works")
    func partialKeys() throws {
        let vectors = try ProofKeyVectors.load()
        let onlyCurrent = try DiscoveryDocument(xml: """
            <wopi-discovery><proof-key modulus="\(vectors.discovery.modulus)" exponent="AQAB"/></wopi-discovery>
            """)
        #expect(onlyCurrent.proofKeys?.old == nil)
        let onlyBlobs = try DiscoveryDocument(xml: """
            <wopi-discovery><proof-key value="\(vectors.discovery.value)" oldvalue="\(vectors.discovery.oldvalue)"/></wopi-discovery>
            """)
        #expect(onlyBlobs.proofKeys?.current.base64Modulus == vectors.discovery.modulus)
        #expect(onlyBlobs.proofKeys?.old?.base64Modulus == vectors.discovery.oldmodulus)
        let noKeys = try DiscoveryDocument(xml: "<wopi-discovery><net-zone name=\"internal-http\"/></wopi-discovery>")
        #expect(noKeys.proofKeys == nil)
        #expect(noKeys.actions.isEmpty)
    }

    @Test("bad discovery documents are refused with an error naming the problem")
    func errors() throws {
        let vectors = try ProofKeyVectors.load()
        let d = vectors.discovery
        func parse(_ xml: String) -> DiscoveryDocument.ParseError? {
            do {
                _ = try DiscoveryDocument(xml: xml)
                return nil
            } catch {
                return error
            }
        }
        for truncated in ["<wopi-discovery><proof-key", "<wopi-discovery>", "<wopi-discovery><net-zone name=\"a\">", "<wopi-discovery></net-zone>", "no xml"] {
            guard case .malformedXML = parse(truncated) else {
                Issue.record("\(truncated) must be malformed, got \(String(describing: parse(truncated)))")
                continue
            }
        }
        #expect(parse("") != nil)
        #expect(parse("<html><body/></html>") == .notDiscovery(rootElement: "html"))
        #expect(parse("<wopi-discovery><proof-key modulus=\"\(d.modulus)\" exponent=\"AQAB\"/><proof-key modulus=\"\(d.modulus)\" exponent=\"AQAB\"/></wopi-discovery>")
            == .duplicateProofKey)
        #expect(parse("<wopi-discovery><proof-key modulus=\"\(d.modulus)\"/></wopi-discovery>")
            == .missingAttribute(element: "proof-key", attribute: "exponent"))
        #expect(parse("<wopi-discovery><proof-key oldmodulus=\"\(d.oldmodulus)\" oldexponent=\"AQAB\"/></wopi-discovery>")
            == .missingAttribute(element: "proof-key", attribute: "modulus"))
        #expect(parse("<wopi-discovery><proof-key modulus=\"***\" exponent=\"AQAB\"/></wopi-discovery>")
            == .invalidProofKey(attribute: "modulus", .invalidBase64(field: "modulus")))
        // value and modulus describing different keys: which one to trust is unknowable.
        #expect(parse("<wopi-discovery><proof-key value=\"\(d.oldvalue)\" modulus=\"\(d.modulus)\" exponent=\"AQAB\"/></wopi-discovery>")
            == .inconsistentProofKey(attributes: "value and modulus/exponent"))
        #expect(parse("<wopi-discovery><app name=\"Word\"><action ext=\"docx\" urlsrc=\"u\"/></app></wopi-discovery>")
            == .missingAttribute(element: "action", attribute: "name"))
        let short = Data([0xC1] + [UInt8](repeating: 7, count: 127)).base64EncodedString()
        guard case .invalidProofKey(attribute: "modulus", .unsupportedKey) = parse("<wopi-discovery><proof-key modulus=\"\(short)\" exponent=\"AQAB\"/></wopi-discovery>") else {
            Issue.record("a 1024-bit key must be refused")
            return
        }
        #expect(DiscoveryDocument.ParseError.duplicateProofKey.description.contains("proof-key"))
    }

    @Test("CSP blobs with a wrong header or size are refused")
    func badCSPBlobs() throws {
        let vectors = try ProofKeyVectors.load()
        let blob = [UInt8](try #require(Data(base64Encoded: vectors.discovery.value)))
        func reason(_ bytes: [UInt8]) -> ProofKeyError? {
            do {
                _ = try ProofKey(cspBlob: Data(bytes))
                return nil
            } catch {
                return error
            }
        }
        #expect(reason(blob) == nil)
        var wrongType = blob
        wrongType[0] = 0x07  // PRIVATEKEYBLOB
        var wrongMagic = blob
        wrongMagic[11] = UInt8(ascii: "2")  // "RSA2" is a private key
        var wrongAlgorithm = blob
        wrongAlgorithm[5] = 0x66
        for bad in [wrongType, wrongMagic, wrongAlgorithm, Array(blob.dropLast()), Array(blob.prefix(12)), []] {
            guard case .invalidCSPBlob = reason(bad) else {
                Issue.record("blob of \(bad.count) bytes was not refused as a CSP blob: \(String(describing: reason(bad)))")
                continue
            }
        }
        #expect(throws: ProofKeyError.invalidBase64(field: "value")) { try ProofKey(base64CSPBlob: "@@") }
    }

    @Test("leading zero bytes of the modulus do not make a different key")
    func leadingZeros() throws {
        let vectors = try ProofKeyVectors.load()
        let modulus = try #require(Data(base64Encoded: vectors.discovery.modulus))
        let plain = try ProofKey(modulus: modulus, exponent: Data([1, 0, 1]))
        let padded = try ProofKey(modulus: Data([0]) + modulus, exponent: Data([0, 1, 0, 1]))
        #expect(plain == padded)
        #expect(plain.hashValue == padded.hashValue)
        #expect(plain.pemRepresentation.hasPrefix("-----BEGIN PUBLIC KEY-----"))
    }
}

/// Inputs the `discovery-xml` fuzz target (Fuzz/) found.
extension DiscoveryDocumentTests {
    /// Collabora's discovery with one byte of the `name` attribute replaced by 0xE5 (not UTF-8), as
    /// the fuzzer left it; Foundation's XMLParser trapped on it, so a client's discovery could stop the host.
    @Test("a discovery document whose element or attribute names are not UTF-8 is refused, not a crash")
    func namesThatAreNotUTF8AreRefused() {
        let attribute = Data(#"<?xml version="1.0" encoding="utf-8"?>"#.utf8) + Data("\n<wopi-discovery><net-zone nam".utf8) + Data([0xE5])
            + Data(#"="external-http"><app name="writer"><action ext="odt" name="edit" urlsrc="https://cool.example/"/></app></net-zone></wopi-discovery>"#.utf8)
        let element = Data("<wopi-discovery><net-zone".utf8) + Data([0xFF, 0xFF]) + Data("/></wopi-discovery>".utf8)
        for xml in [attribute, element] {
            #expect(throws: DiscoveryDocument.ParseError.malformedXML(line: 1, column: 1, reason: "the document is not UTF-8")) {
                try DiscoveryDocument(xml: xml)
            }
        }
    }

    /// A processing instruction without data, which Foundation's XMLParser on Linux read through a null pointer;
    /// the XML declaration, first, is still read.
    @Test("a discovery document with a processing instruction is refused, not a crash; the XML declaration is fine")
    func processingInstructionsAreRefused() throws {
        let body = #"<wopi-discovery><net-zone name="external-http"><app name="writer"><action ext="odt" name="edit" urlsrc="https://cool.example/"/></app></net-zone></wopi-discovery>"#
        for xml in ["<?lxm?>" + body, #"<?xml version="1.0"?>"# + "\n<?pi data?>" + body, #"<?xml version="1.0"?>"# + body + "<?x?>"] {
            #expect(throws: DiscoveryDocument.ParseError.malformedXML(line: 1, column: 1, reason: "the document has a processing instruction")) {
                try DiscoveryDocument(xml: Data(xml.utf8))
            }
        }
        #expect(XMLInputCheck.problem(in: Array("\u{FEFF}\n <?xml version=\"1.0\"?>".utf8) + Array(body.utf8)) == nil)
        #expect(XMLInputCheck.problem(in: Array(#"<?xml-stylesheet href="a"?>"#.utf8) + Array(body.utf8)) != nil, "only the declaration")
    }
}
