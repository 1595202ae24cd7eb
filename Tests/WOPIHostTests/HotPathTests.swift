import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// The hot paths rewritten for speed answer exactly as before: the streamed
/// EnumerateChildren has the bytes `WOPIJSON` would have produced, the hand-built timestamp is
/// `formatted(.iso8601)`, and the pipelined upload stores every byte, hashes it right and leaves
/// nothing behind when it fails.
@Suite("Hot paths")
struct HotPathTests {
    // MARK: EnumerateChildren

    @Test("A streamed EnumerateChildren of 2,500 files and 1,005 containers (several pages) is byte for byte the encoded answer")
    func streamedChildrenMatchEncodedAnswer() async throws {
        try await TestHost.run { host in
            let user = try await host.makeUser()
            let root = user.rootContainerID
            let store = host.folder.store
            // Mixed case and digits, so the name order (case-insensitive) differs from a byte order.
            for index in 0..<2_500 {
                let name = (index % 3 == 0 ? "Report " : "report-") + String(index * 7919 % 2_500) + (index % 2 == 0 ? ".docx" : ".XLSX")
                _ = try await store.createFile(named: name, in: root, blob: fakeBlob(size: Int64(index)), replacing: false,
                                               now: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 37.25))
            }
            for index in 0..<1_005 {
                _ = try await store.createContainer(named: (index % 2 == 0 ? "Folder " : "folder_") + String(index), in: root)
            }
            let claims = AccessTokenClaims(userID: user.id, resource: .container(root), expiresAt: host.clock.now().addingTimeInterval(600))
            let token = host.backend.tokens.issue(claims)

            let streamed = try await host.enumerateChildren(root.rawValue, token: token)
            expectStatus(streamed, 200)
            #expect(streamed.header("Content-Type") == "application/json; charset=utf-8")

            // The answer as the encoder built it before the streamed writer, from one read of all children.
            let children = try await store.children(of: root)
            let encoded = try WOPIJSON.encoder.encode(ChildrenResponse(
                childContainers: children.containers.map { NamedURL(name: $0.name, url: host.backend.url(.container($0.id), for: claims)) },
                childFiles: children.files.map {
                    ChildFile(name: $0.name, url: host.backend.url(.file($0.id), for: claims), size: $0.size, version: $0.versionString,
                              lastModifiedTime: $0.modifiedAt.wopiTimestamp)
                }))
            #expect(children.files.count == 2_500 && children.containers.count == 1_005)
            // Every Url carries a freshly issued token; compare everything but the tokens' bytes, then check the tokens.
            let (streamedText, streamedTokens) = Self.withoutTokens(String(decoding: streamed.body, as: UTF8.self))
            let (encodedText, _) = Self.withoutTokens(String(decoding: encoded, as: UTF8.self))
            #expect(streamedText == encodedText)
            #expect(streamedTokens.count == 3_505)
            let resources = children.containers.map { WOPIResource.container($0.id) } + children.files.map { WOPIResource.file($0.id) }
            for (token, resource) in zip(streamedTokens, resources) {
                #expect(throws: Never.self) { _ = try host.backend.tokens.verify(token, for: resource, now: host.clock.now()) }
            }
        }
    }

    @Test("The streamed answer filters by extension across pages and never filters containers")
    func streamedFilter() async throws {
        try await TestHost.run { host in
            let user = try await host.makeUser()
            let store = host.folder.store
            for index in 0..<1_500 {
                _ = try await store.createFile(named: "f\(index)" + (index % 3 == 0 ? ".DOCX" : ".xlsx"), in: user.rootContainerID,
                                               blob: fakeBlob(), replacing: false, now: host.clock.now())
            }
            _ = try await store.createContainer(named: "Sub.xlsx", in: user.rootContainerID)
            let token = host.token(user, .container(user.rootContainerID))
            let json = try await host.enumerateChildren(user.rootContainerID.rawValue, token: token, filter: " .docx ").json()
            let names = try #require(json["ChildFiles"]?.array).compactMap { $0["Name"]?.string }
            #expect(names.count == 500)
            #expect(names.allSatisfy { $0.hasSuffix(".DOCX") })
            #expect(try #require(json["ChildContainers"]?.array).count == 1)
        }
    }

    @Test("JSON strings written by hand are escaped exactly as JSONEncoder escapes them")
    func jsonTextEscaping() throws {
        var samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["", "plain", "quote \" and back\\slash", "a/b", "Été 😀 日本", "tab\tnew\nline\r", "\u{7F}\u{2028}\u{2029}"]
        for sample in samples {
            var buffer = ByteBuffer()
            JSONText.writeString(sample, to: &buffer)
            let expected = try WOPIJSON.encoder.encode([sample])
            #expect("[" + String(buffer: buffer) + "]" == String(decoding: expected, as: UTF8.self), "\(sample.unicodeScalars.map(\.value))")
        }
    }

    @Test("The flat JSON fast path writes the bytes Foundation's encoder writes, and declines what it cannot write")
    func flatJSONMatchesFoundation() throws {
        func check(_ value: some Encodable, flat: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let fast = FlatJSONEncoder.encode(value)
            #expect((fast != nil) == flat, sourceLocation: sourceLocation)
            if let fast {
                #expect(String(buffer: fast) == String(decoding: try WOPIJSON.encoder.encode(value), as: UTF8.self), sourceLocation: sourceLocation)
            }
        }
        // Twice over, alternating: each list of keys a type writes has its own remembered layout.
        let info = "{\"theme\":\"dark\"}\n\u{1}"
        for userInfo in [nil, info, nil, info] {
            try check(CheckFileInfoResponse(
                baseFileName: "Budget \"Q3\" é.xlsx", ownerId: "owner", size: 1_234_567_890_123, userId: "user", version: "v42",
                fileExtension: ".xlsx", lastModifiedTime: Date(timeIntervalSince1970: 1_700_000_000).wopiTimestamp,
                SHA256: "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", fileUrl: "https://h/wopi/files/a/contents?access_token=x.y_z-",
                userFriendlyName: "Zoë \\ Ødegaard", userInfo: userInfo, isEduUser: false, licenseCheckForEditIsEnabled: false,
                userCanWrite: true, userCanRename: false, userCanNotWriteRelative: false, readOnly: true,
                supportedShareUrlTypes: ["ReadOnly", "ReadWrite"],
                breadcrumbBrandName: "WOPIKit", breadcrumbFolderName: "Files/2026"), flat: true)
        }
        try check(ContainerInfo(ContainerRecord(id: .random(), parentID: nil, ownerID: .random(), name: "Root \t")), flat: true)
        try check(NewFileResponse(name: "a.docx", url: "https://h/x"), flat: true)
        try check(NamedURL(name: "n", url: "u"), flat: true)
        try check(["name": "lower-case keys stay as they are"], flat: false)
        try check(ChildrenResponse(childContainers: [NamedURL(name: "n", url: "u")], childFiles: []), flat: false)
        try check(ContainerPointerResponse(containerPointer: NamedURL(name: "n", url: "u"),
                                           containerInfo: ContainerInfo(ContainerRecord(id: .random(), parentID: nil, ownerID: .random(), name: "r"))),
                  flat: false)
    }

    // MARK: Timestamps

    @Test("wopiTimestamp is formatted(.iso8601) for dates across the calendar, fractions and negatives included")
    func timestamps() {
        var dates = [0, -1, -0.5, 0.999, 59.9999, 951_782_400, 951_868_800, 1_700_000_000.75, 4_102_444_800, -2_208_988_800.25,
                     253_402_300_799, -62_135_596_800].map(Date.init(timeIntervalSince1970:))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: -62_000_000_000...253_000_000_000, using: &generator)))
        }
        for date in dates {
            #expect(date.wopiTimestamp == date.formatted(.iso8601), "\(date.timeIntervalSince1970)")
        }
    }

    // MARK: Uploads

    @Test("A pipelined upload of odd-sized chunks over several batches keeps every byte, its size and its SHA-256")
    func pipelinedUpload() async throws {
        try await withBlobStore { blobs, folder in
            var generator = SystemRandomNumberGenerator()
            var chunks: [ByteBuffer] = []
            var all = Data()
            var total = 0
            while total < 13 * 1024 * 1024 + 12_345 {
                let count = Int.random(in: 1...300_000, using: &generator)
                let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                chunks.append(ByteBuffer(bytes: bytes))
                all.append(contentsOf: bytes)
                total += count
            }
            let stored = try await blobs.write(Chunks(chunks: chunks, failAfter: nil), maximumSize: Int64(total))
            #expect(stored.size == Int64(total))
            #expect(stored.sha256 == Data(SHA256.hash(data: all)).base64EncodedString())
            let path = folder.appendingPathComponent("\(stored.key.rawValue.prefix(2))/\(stored.key.rawValue)")
            #expect(try Data(contentsOf: path) == all)
            #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.stagingFolder.path).isEmpty)
        }
    }

    @Test("An upload that fails mid-way or grows past the limit leaves nothing behind")
    func failedUploadsLeaveNothing() async throws {
        try await withBlobStore { blobs, folder in
            let chunks = (0..<40).map { _ in ByteBuffer(repeating: 7, count: 256 * 1024) }  // 10 MiB: two batches written before the failure
            await #expect(throws: UploadBroke.self) {
                _ = try await blobs.write(Chunks(chunks: chunks, failAfter: 36), maximumSize: 1 << 30)
            }
            await #expect(throws: BlobStoreError.tooLarge(maximumSize: 9 * 1024 * 1024)) {
                _ = try await blobs.write(Chunks(chunks: chunks, failAfter: nil), maximumSize: 9 * 1024 * 1024)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.stagingFolder.path).isEmpty)
            let stored = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
            #expect(stored.isEmpty, "no body was renamed into place")
        }
    }

    // MARK: Downloads

    @Test("GetFile sends every byte across chunk boundaries, and breaks off rather than pad a stored body that came up short")
    func chunkedDownloads() async throws {
        try await TestHost.run { host in
            let user = try await host.makeUser()
            let chunk = 1024 * 1024
            var generator = SystemRandomNumberGenerator()
            // Sizes around the 1 MiB chunk, and one that takes several turns of both buffers.
            for size in [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 12_345] {
                let content = Data((0..<size).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
                let file = try await host.addFile("Body \(size).docx", content, owner: user)
                let got = try await host.getFile(file.id.rawValue, token: host.token(user, .file(file.id)))
                expectStatus(got, 200)
                #expect(got.body == content, "\(size) bytes came back as \(got.body.count), or different")
            }

            let content = Data(repeating: 0x42, count: 2 * chunk + 7)
            let file = try await host.addFile("Short.docx", content, owner: user)
            let key = file.blobKey.rawValue
            let path = host.folder.fileBlobs.folder.appendingPathComponent("\(key.prefix(2))/\(key)").path
            #expect(truncate(path, off_t(chunk + 3)) == 0)
            do {
                let got = try await host.getFile(file.id.rawValue, token: host.token(user, .file(file.id)))
                #expect(got.body.count < content.count, "a short body is never padded to its recorded size: \(got.body.count) bytes")
            } catch {
                // The connection ends before the promised length: what a client must see.
                #expect(error is HTTPClientError || error is HTTPParserError, "\(error)")
            }
            let intact = try await host.addFile("Intact.docx", content, owner: user)
            let after = try await host.getFile(intact.id.rawValue, token: host.token(user, .file(intact.id)))
            #expect(after.body == content, "the host goes on answering")
        }
    }

    // MARK: Lock group commit

    @Test("Concurrent lock changes committed together keep one winner per file, and a missing file fails alone")
    func groupCommittedLocks() async throws {
        try await StoreUnderTest.with(.sqlite) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "lee", displayName: "Lee", passwordHash: .unusable)
            var files: [FileRecord] = []
            for index in 0..<10 {
                files.append(try await store.createFile(named: "f\(index).docx", in: user.rootContainerID, blob: fakeBlob(),
                                                        replacing: false, now: Date()).file)
            }
            let now = Date()
            var attempts: [LockAttempt] = []
            await withTaskGroup(of: LockAttempt.self) { group in
                for file in files {
                    for attempt in 0..<20 {
                        group.addTask { await LockAttempt.run(store, file.id, "lock-\(attempt)", now) }
                    }
                }
                group.addTask { await LockAttempt.run(store, .random(), "missing", now) }
                for await attempt in group { attempts.append(attempt) }
            }
            let missing = attempts.filter { $0.value == "missing" }
            #expect(missing.count == 1 && missing.first?.error == .notFound && missing.first?.decision == nil)
            for file in files {
                let mine = attempts.filter { $0.file == file.id }
                let winners = mine.filter { if case .granted = $0.decision { true } else { false } }
                #expect(mine.count == 20 && winners.count == 1, "one lock wins on \(file.name)")
                let stored = try #require(try await store.file(id: file.id))
                #expect(stored.lock?.lock.value == winners.first?.value)
                for loser in mine where loser.value != winners.first?.value {
                    guard case .conflict(let current, _) = loser.decision else {
                        Issue.record("\(loser.value) on \(file.name): \(String(describing: loser.decision)) \(String(describing: loser.error))")
                        continue
                    }
                    #expect(current == winners.first?.value)
                }
            }
        }
    }

    // MARK: Support

    private func withBlobStore(_ body: (FileSystemBlobStore, URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-blobs-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(try FileSystemBlobStore(folder: folder), folder)
    }

    /// `text` with every `access_token=` value replaced by `T`, and the values in order.
    private static func withoutTokens(_ text: String) -> (String, [String]) {
        var parts = text.components(separatedBy: "access_token=")
        var tokens: [String] = []
        for index in parts.indices.dropFirst() {
            let part = parts[index]
            let end = part.firstIndex(of: "\"") ?? part.endIndex
            tokens.append(String(part[..<end]))
            parts[index] = "T" + part[end...]
        }
        return (parts.joined(separator: "access_token="), tokens)
    }
}

private struct UploadBroke: Error {}

/// One `updateLock` call and what it answered.
private struct LockAttempt: Sendable {
    let file: ResourceID
    let value: String
    let decision: LockRules.Decision?
    let error: WOPIStoreError?

    static func run(_ store: any WOPIStore, _ file: ResourceID, _ value: String, _ now: Date) async -> LockAttempt {
        do {
            let decision = try await store.updateLock(file, request: .lock(WOPILock(value)!), now: now).decision
            return LockAttempt(file: file, value: value, decision: decision, error: nil)
        } catch {
            return LockAttempt(file: file, value: value, decision: nil, error: error as? WOPIStoreError)
        }
    }
}

/// A request body of fixed chunks that can fail part-way, as a dropped connection does.
private struct Chunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let chunks: [ByteBuffer]
    let failAfter: Int?

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<ByteBuffer>
        var failAfter: Int?
        var sent = 0

        mutating func next() async throws -> ByteBuffer? {
            if let failAfter, sent == failAfter { throw UploadBroke() }
            sent += 1
            return remaining.popFirst()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...], failAfter: failAfter) }
}
