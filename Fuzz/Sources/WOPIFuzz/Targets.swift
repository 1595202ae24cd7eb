import Configuration
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@testable import OfficeSimulator
@testable import OfficeURLScheme
import SystemPackage
@testable import WOPIAuthorization
@testable import WOPIBlobStoreS3
@testable import WOPICore
@testable import WOPIHost
@testable import WOPIValidator

/// Fails the run with the input's property that does not hold (libFuzzer saves the input).
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

// MARK: Office URIs

/// What Office and the provider's app are opened with: invoke URIs, passbacks, sign-in requests and
/// answers, and the bootstrapper's `WWW-Authenticate` challenge. A parsed URI must print to text that
/// parses to the same value, raw and percent-encoded.
enum OfficeURIFuzz {
    static func run(_ bytes: [UInt8]) {
        let input = text(bytes)
        if let invoke = try? OfficeInvokeURI(string: input) {
            require((try? OfficeInvokeURI(string: invoke.string)) == invoke, "invoke URI does not round-trip: \(invoke.string)")
            require((try? OfficeInvokeURI(url: invoke.url)) == invoke, "invoke URI does not round-trip as a URL: \(invoke.percentEncodedString)")
            _ = invoke.warnings
        }
        if let passback = try? OfficePassback(string: input) {
            require((try? OfficePassback(string: passback.string)) == passback, "passback does not round-trip: \(passback.string)")
            require((try? OfficePassback(url: passback.url)) == passback, "passback does not round-trip as a URL: \(passback.percentEncodedString)")
        }
        _ = try? OfficeURLMessage(string: input)
        if let request = try? SignInRequest(string: input) {
            require((try? SignInRequest(string: request.string)) == request, "sign-in request does not round-trip: \(request.string)")
            _ = request.url
        }
        if let response = try? SignInResponse(string: input) {
            require((try? SignInResponse(string: response.string)) == response, "sign-in response does not round-trip: \(response.string)")
            _ = response.url
        }
        if let url = URL(string: input) { _ = try? OfficeInvokeURI(url: url) }
        if let challenge = try? BootstrapperChallenge(headerValue: input) {
            _ = try? BootstrapperChallenge(headerValue: challenge.headerValue)
        }
    }
}

// MARK: WOPI request headers

/// A block of `Name: value` lines as a WOPI client sends them, read the way the host's routes and its
/// proof-key middleware read them: the override, plain and JSON lock ids, UTF-7 names, the save
/// timestamp, the bearer token, the proof-key timestamp and signatures.
enum WOPIHeadersFuzz {
    /// A fixed key, so that seeds can carry signatures that verify (see `Fuzz/Corpus/wopi-headers`).
    static let signer: ProofKeySigner = {
        guard let signer = try? ProofKeySigner(currentKeyPEM: FuzzKeys.currentPEM, oldKeyPEM: FuzzKeys.oldPEM) else {
            fatalError("the fuzz proof keys do not load")
        }
        return signer
    }()

    /// A seed: the proof-key headers for `url` (its `access_token` signed) at a fixed moment.
    static func signedHeaders(url: String) -> String {
        let timestamp = ProofKeyTimestamp(Date(timeIntervalSince1970: 1_700_000_000))
        let token = URLComponents(string: url)?.queryItems?.first { $0.name == "access_token" }?.value ?? ""
        guard let headers = try? signer.sign(ProofKeyRequest(accessToken: token, url: url, timestamp: timestamp)) else {
            fatalError("cannot sign \(url)")
        }
        return "URL: \(url)\nX-WOPI-TimeStamp: \(timestamp.ticks)\nX-WOPI-Proof: \(headers.proof)\nX-WOPI-ProofOld: \(headers.proofOld)"
    }

    static func run(_ bytes: [UInt8]) {
        var fields = HTTPFields()
        var url = "https://wopi.example/wopi/files/1?access_token=t"
        for line in text(bytes).split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon]), value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "URL" { url = value; continue }
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        _ = try? fields.single(.wopiOverride)
        let lock = (try? fields.single(.wopiLock)).flatMap { $0 }.flatMap(WOPILock.init)
        let oldLock = (try? fields.single(.wopiOldLock)).flatMap { $0 }.flatMap(WOPILock.init)
        if let lock {
            _ = lock.sessionID
            if let oldLock { require(lock.matches(oldLock) == oldLock.matches(lock), "lock matching is not symmetric") }
            require(lock.matches(lock), "a lock does not match itself")
        }
        for name in [HTTPField.Name.wopiSuggestedTarget, .wopiRelativeTarget, .wopiRequestedName] {
            guard let value = (try? fields.single(name)).flatMap({ $0 }), let decoded = try? NameRules.decodeHeader(value) else { continue }
            require((try? WOPICore.UTF7.decode(WOPICore.UTF7.encode(decoded))) == decoded, "UTF-7 does not round-trip: \(decoded.debugDescription)")
            _ = NameRules.problem(with: decoded)
            _ = NameRules.fileNameProblem(decoded)
            _ = NameRules.sanitized(decoded)
            _ = NameRules.sanitizedFileName(decoded)
            _ = WOPIName.numbered(decoded, 2)
        }
        if let limit = (try? fields.single(.wopiMaxExpectedSize)).flatMap({ $0 }) { _ = Int64(limit) }
        for name in [HTTPField.Name.coolTimestamp, .loolTimestamp] {
            _ = SaveTimestampRule.evaluate(header: fields[name], storedModifiedTime: Date(timeIntervalSince1970: 1_700_000_000))
        }
        _ = BearerCredential.token(in: fields)
        // Proofs are checked at the moment the timestamp names, so a seed's signature stays valid.
        let now = fields[.wopiTimestamp].flatMap(ProofKeyTimestamp.init(headerValue:)).map { timestamp in
            Date(timeIntervalSince1970: Double(timestamp.ticks - ProofKeyTimestamp(Date(timeIntervalSince1970: 0)).ticks) / 1e7)
        } ?? Date(timeIntervalSince1970: 1_700_000_000)
        let token = URLComponents(string: url)?.queryItems?.first { $0.name == "access_token" }?.value ?? ""
        _ = ProofKeyVerifier(keys: signer.proofKeys).verify(accessToken: token, url: url, timestampHeader: fields[.wopiTimestamp],
                                                            proofHeader: fields[.wopiProof], proofOldHeader: fields[.wopiProofOld], now: now)
    }
}

// MARK: Discovery

/// A WOPI client's discovery document: proof keys and actions.
enum DiscoveryXMLFuzz {
    /// A seed: discovery as this project writes it, with the fuzz proof keys (current and old).
    static func document(urlSource: String) -> String {
        let actions = [
            DiscoveryDocument.Action(appName: "Word", name: "edit", fileExtension: "docx", urlSource: urlSource,
                                     favIconURL: "https://office.example/wv/resources/1033/FavIcon_Word.ico"),
            DiscoveryDocument.Action(appName: "Word", name: "view", fileExtension: "docx", urlSource: urlSource),
            DiscoveryDocument.Action(netZone: "internal-http", appName: "Excel", name: "view", fileExtension: "xlsx", urlSource: urlSource),
        ]
        return DiscoveryDocument(proofKeys: WOPIHeadersFuzz.signer.proofKeys, actions: actions).xmlString
    }

    static func run(_ bytes: [UInt8]) {
        guard let document = try? DiscoveryDocument(xml: Data(bytes)) else { return }
        // `xmlString` (what `wopi proof` publishes) regroups actions by zone and app and leaves out icons,
        // but must keep every action and the keys.
        let again = try? DiscoveryDocument(xml: document.xmlString)
        require(again?.proofKeys == document.proofKeys && again?.actions.count == document.actions.count,
                "discovery does not survive xmlString: \(document.xmlString)")
    }
}

// MARK: Multipart

/// A browser's `multipart/form-data` upload: the first line is the `Content-Type`, the rest the body,
/// which arrives in chunks whose size the first byte of the body picks; read as the upload handler reads it.
enum MultipartFuzz {
    static func run(_ bytes: [UInt8]) {
        let (contentType, body) = firstLine(bytes)
        let chunkSize = max(1, Int(body.first ?? 0) % 64 + 1) * (body.count > 4096 ? 64 : 1)
        let chunks = stride(from: 0, to: body.count, by: chunkSize).map { ByteBuffer(bytes: body[$0..<min($0 + chunkSize, body.count)]) }
        blocking {
            let requestBody = RequestBody(asyncSequence: chunks.async)
            guard let reader = MultipartFormReader(contentType: contentType, body: requestBody) else { return }
            do {
                while let part = try await reader.nextPart() {
                    if part.filename == nil {
                        _ = try await reader.text(limit: 256)
                    } else {
                        var size = 0
                        for try await chunk in reader.partBody { size += chunk.readableBytes }
                        require(size <= body.count, "a part is longer than the body")
                    }
                }
            } catch {}
        }
    }
}

/// An array as an async sequence (the request body's chunks).
struct AsyncChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let chunks: [ByteBuffer]
    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<ByteBuffer>
        mutating func next() async -> ByteBuffer? { rest.popFirst() }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }
}

extension Array where Element == ByteBuffer {
    var async: AsyncChunks { AsyncChunks(chunks: self) }
}

// MARK: Simulator

/// A sign-in page the simulator fills in like a person would, and a form-encoded answer it reads.
enum SimulatorHTMLFormFuzz {
    static let page = URL(string: "https://idp.example/signin/start?x=1")!

    static func run(_ bytes: [UInt8]) {
        let html = text(bytes)
        _ = HTMLForm.errorMessage(in: html)
        if let form = try? HTMLForm(html: html, pageURL: page) {
            let values = ["username": "alice", "password": "secret"]
            _ = try? form.submission(filling: values)
            for control in form.controls where control.type == "submit" {
                _ = try? form.submission(filling: values, pressing: control)
            }
        }
        _ = FormEncoding.decode(html)
    }
}

// MARK: Validator

/// Microsoft's TestCases.xml, as the validator loads it (with two small schemas to resolve names against).
enum ValidatorDefinitionsFuzz {
    static let schemas: [String: JSONSchema] = {
        let source = #"{"type":"object","properties":{"BaseFileName":{"type":"string"},"Size":{"type":"integer"}},"required":["BaseFileName"]}"#
        guard let schema = try? JSONSchema(bytes: Array(source.utf8)) else { fatalError("the fuzz schema does not load") }
        return ["CheckFileInfoSchema": schema, "PutRelativeFileSchema": schema]
    }()

    static func run(_ bytes: [UInt8]) {
        _ = try? ValidatorDefinitions(xml: Data(bytes), schemas: schemas)
    }
}

/// A host's JSON answer and a JSON schema, through the validator's own parser in each of its modes;
/// a document that loads as a schema then validates itself.
enum ValidatorJSONFuzz {
    static func run(_ bytes: [UInt8]) {
        let strict = try? JSONParser().parse(bytes)
        _ = try? JSONParser(allowsComments: true).parse(bytes)
        _ = try? JSONParser(allowsComments: true, allowsRelaxedSyntax: true).parse(bytes)
        if let strict, let schema = try? JSONSchema(strict) {
            _ = schema.validate(strict)
        }
    }
}

/// A path from TestCases.xml (the first line) selecting into a host's JSON answer (the rest).
enum ValidatorJSONPathFuzz {
    static func run(_ bytes: [UInt8]) {
        let (line, rest) = firstLine(bytes)
        guard let path = JSONPath(line) else { return }
        if let document = try? JSONParser().parse(rest) { _ = path.select(in: document) }
    }
}

// MARK: S3

/// The S3 server's XML answers the blob store decodes: errors, listings, multipart uploads.
enum S3XMLFuzz {
    static func run(_ bytes: [UInt8]) {
        let body = ByteBuffer(bytes: bytes)
        _ = try? S3Client.decode(ErrorResponse.self, from: body)
        if let list = try? S3Client.decode(ListBucketResult.self, from: body) {
            for object in list.contents { _ = S3Timestamp.parse(object.lastModified) }
        }
        if let uploads = try? S3Client.decode(ListMultipartUploadsResult.self, from: body) {
            for upload in uploads.uploads { _ = S3Timestamp.parse(upload.initiated) }
        }
        _ = try? S3Client.decode(InitiateMultipartUploadResult.self, from: body)
    }
}

// MARK: Forms

/// The authorization server's inputs: an authorize query or token form checked against the
/// registered clients, the HTTP Basic credentials of a token request, PKCE values.
enum OAuthFormFuzz {
    static let clients: [OAuthClient] = {
        guard let registration = try? OfficeRegistration(clientID: "office", clientSecret: "office-secret",
                                                         iOSURLSchemes: ["contoso-wopi"]) else { fatalError("the fuzz registration does not load") }
        return OAuthClient.clients(for: registration)
    }()

    static func run(_ bytes: [UInt8]) {
        let input = text(bytes)
        if let fields = try? FormFields(encoded: input) {
            if let request = try? AuthorizationRequest(fields, clients: clients) {
                _ = request.errorRedirect("access_denied", "the user said no")
            }
            _ = try? FormFields(encoded: fields.encoded)
            if let challenge = fields["code_challenge"] { _ = PKCE.isValidChallenge(challenge) }
            if let verifier = fields["code_verifier"], PKCE.isValidVerifier(verifier) {
                _ = PKCE.verify(verifier, against: fields["code_challenge"] ?? "")
            }
            if let uri = fields["redirect_uri"] { _ = RedirectURI.normalized(uri) }
        }
        if let decoded = Base64URL.decodeStandard(input.trimmingCharacters(in: .whitespaces)) { _ = decoded.firstIndex(of: ":") }
    }
}

/// The web front's form posts (sign-in, new folder, rename): the fields, then the names in them.
enum WebFormFuzz {
    static func run(_ bytes: [UInt8]) {
        guard let fields = try? FormFields(encoded: text(bytes)) else { return }
        _ = fields["csrf"]
        _ = (fields["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let name = (fields["name"] ?? "").trimmingCharacters(in: .whitespaces)
        _ = NameRules.problem(with: name)
        _ = NameRules.fileNameProblem(name)
        _ = NameRules.sanitizedFileName(name)
        if let role = fields["role"] { _ = AccessRole(grant: role) }
    }
}

// MARK: Configuration file

/// `wopi serve --config FILE`: the JSON object read with JSONSerialization (for its keys) and with
/// swift-configuration's `FileProvider<JSONSnapshot>`, each key asked for as the command asks for it
/// (a string list, a flag, a string, an integer, a number). The command's own code lives in the
/// executable, which another package cannot link; these are the same calls on the same file.
enum ConfigFileFuzz {
    static let path = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-fuzz-config-\(getpid()).json").path

    static func run(_ bytes: [UInt8]) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else { return }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fatalError("cannot write \(path)") }
        let keys = object.keys.sorted()
        let file = path
        blocking {
            guard let provider = try? await FileProvider<JSONSnapshot>(filePath: FilePath(file)) else { return }
            let reader = ConfigReader(provider: provider)
            for key in keys {
                let configKey = ConfigKey([key])
                _ = reader.stringArray(forKey: configKey)
                _ = reader.bool(forKey: configKey)
                _ = reader.string(forKey: configKey)
                _ = reader.int(forKey: configKey)
                _ = reader.double(forKey: configKey)
            }
        }
    }
}
