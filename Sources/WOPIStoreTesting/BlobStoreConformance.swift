import Crypto
import Foundation
import NIOCore
import Testing
import WOPIHost

/// The promises every `BlobStore` (WOPIHost) keeps, as checks you run against your own store from Swift Testing.
///
/// ```swift
/// @Test(arguments: BlobStoreConformance.Check.allCases)
/// func myStore(_ check: BlobStoreConformance.Check) async throws {
///     try await BlobStoreConformance { try await .init(store: MyStore(...), contents: { ... }) }.run(check)
/// }
/// ```
///
/// Each check asks `makeSubject` for a store over a location of its own, empty and used by nothing
/// else (the sweep check removes every orphan it finds there), and reports failures as Swift Testing issues.
public struct BlobStoreConformance: ConformanceSuite {
    /// A store under test and a way to see everything it holds.
    public struct Subject: Sendable {
        /// The store.
        public var store: any BlobStore
        /// Names of everything at the store's location, unfinished uploads and staging files included: what
        /// a failed write must not add to.
        public var contents: @Sendable () async throws -> Set<String>

        /// A subject.
        public init(store: any BlobStore, contents: @escaping @Sendable () async throws -> Set<String>) {
            self.store = store
            self.contents = contents
        }
    }

    /// One promise.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Every write gets a key of its own, even for the same bytes, and reports their size and SHA-256.
        case writeGivesFreshKeys
        /// A read streams exactly the bytes written (empty, small and larger than any internal part), with the recorded size.
        case readStreamsTheStoredBytes
        /// `tooLarge` comes as soon as more than the maximum arrived, and nothing stays behind.
        case tooLargeStopsEarlyAndLeavesNothing
        /// A body that fails midway (small, or after more than a part) leaves nothing behind.
        case failedBodyLeavesNothing
        /// Deleting removes a blob, deleting a missing one is no error, and reading a missing one is `notFound`.
        case deleteToleratesMissingKeys
        /// The orphan sweep keeps referenced blobs and blobs younger than the grace period, and removes old orphans.
        case sweepSparesYoungAndReferencedBlobs
        /// A working store says it is ready.
        case readinessHoldsWhenWorking

        /// The check's name.
        public var testDescription: String { rawValue }
    }

    private let makeSubject: @Sendable () async throws -> Subject
    private let largeBodySize: Int

    /// Checks over the stores `makeSubject` returns. `largeBodySize` should exceed the size at which the store
    /// changes strategy (a multipart upload's part size, a write batch): the default is 20 MiB.
    public init(largeBodySize: Int = 20 * 1024 * 1024, makeSubject: @escaping @Sendable () async throws -> Subject) {
        self.makeSubject = makeSubject
        self.largeBodySize = largeBodySize
    }

    /// Runs one check.
    public func run(_ check: Check) async throws {
        let subject = try await makeSubject()
        switch check {
        case .writeGivesFreshKeys: try await writeGivesFreshKeys(subject)
        case .readStreamsTheStoredBytes: try await readStreamsTheStoredBytes(subject)
        case .tooLargeStopsEarlyAndLeavesNothing: try await tooLargeStopsEarly(subject)
        case .failedBodyLeavesNothing: try await failedBodyLeavesNothing(subject)
        case .deleteToleratesMissingKeys: try await deleteToleratesMissingKeys(subject)
        case .sweepSparesYoungAndReferencedBlobs: try await sweepSparesYoungBlobs(subject)
        case .readinessHoldsWhenWorking: try await subject.store.checkReadiness()
        }
    }

    // MARK: Checks

    private func writeGivesFreshKeys(_ subject: Subject) async throws {
        let bytes = TestBody.pattern(count: 10_000, seed: 1)
        let first = try await subject.store.write(TestBody(bytes), maximumSize: 1 << 20)
        let second = try await subject.store.write(TestBody(bytes), maximumSize: 1 << 20)
        #expect(first.key != second.key, "two writes of the same bytes share key \(first.key)")
        for blob in [first, second] {
            #expect(blob.size == Int64(bytes.count))
            #expect(blob.sha256 == Data(SHA256.hash(data: bytes)).base64EncodedString())
            #expect(try await Self.readAll(subject.store, blob) == bytes)
        }
    }

    private func readStreamsTheStoredBytes(_ subject: Subject) async throws {
        for count in [0, 1, 65_537, largeBodySize + 12_345] {
            let bytes = TestBody.pattern(count: count, seed: UInt8(truncatingIfNeeded: count))
            let blob = try await subject.store.write(TestBody(bytes, chunkSize: 61_440), maximumSize: Int64(count))
            #expect(blob.size == Int64(count))
            #expect(blob.sha256 == Data(SHA256.hash(data: bytes)).base64EncodedString(), "SHA-256 of \(count) bytes")
            let content = try await subject.store.read(blob.key, size: blob.size)
            #expect(content.size == Int64(count), "read promised \(content.size) bytes of \(count)")
            var hasher = SHA256()
            var received = 0
            for try await chunk in content {
                received += chunk.readableBytes
                chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            }
            #expect(received == count)
            #expect(Data(hasher.finalize()) == Data(SHA256.hash(data: bytes)), "a \(count)-byte body came back different")
        }
    }

    private func tooLargeStopsEarly(_ subject: Subject) async throws {
        let before = try await subject.contents()
        for maximum in [100, largeBodySize] {
            let body = EndlessBody(chunkSize: 65_536, limit: Int64(maximum) + 64 * 1024 * 1024)
            await #expect(throws: BlobStoreError.tooLarge(maximumSize: Int64(maximum))) {
                _ = try await subject.store.write(body, maximumSize: Int64(maximum))
            }
            let pulled = body.pulledBytes()
            #expect(pulled <= Int64(maximum) + 65_536, "the store read \(pulled) bytes past a maximum of \(maximum) before refusing")
        }
        try await expectNothingLeft(subject, before: before)
    }

    private func failedBodyLeavesNothing(_ subject: Subject) async throws {
        let before = try await subject.contents()
        for failAfter in [1, largeBodySize / 65_536 + 2] {
            let body = TestBody(TestBody.pattern(count: (failAfter + 5) * 65_536, seed: 7), chunkSize: 65_536, failAfterChunks: failAfter)
            await #expect(throws: TestBody.Interrupted.self, "a body failing after \(failAfter) chunks") {
                _ = try await subject.store.write(body, maximumSize: 1 << 40)
            }
        }
        try await expectNothingLeft(subject, before: before)
    }

    private func deleteToleratesMissingKeys(_ subject: Subject) async throws {
        let blob = try await subject.store.write(TestBody(Data("delete me".utf8)), maximumSize: 100)
        try await subject.store.delete(blob.key)
        await #expect(throws: BlobStoreError.notFound(blob.key)) {
            for try await _ in try await subject.store.read(blob.key, size: blob.size) {}
        }
        try await subject.store.delete(blob.key)
        try await subject.store.delete(BlobKey.random())
    }

    private func sweepSparesYoungBlobs(_ subject: Subject) async throws {
        let store = subject.store
        let referenced = try await store.write(TestBody(Data("recorded".utf8)), maximumSize: 100)
        let orphan = try await store.write(TestBody(Data("orphan".utf8)), maximumSize: 100)
        let removedYoung = try await store.collectGarbage(referenced: [referenced.key], grace: 3600)
        #expect(removedYoung == 0, "the sweep removed \(removedYoung) blob(s) younger than its grace period")
        #expect(try await Self.readAll(store, orphan) == Data("orphan".utf8), "an unrecorded blob younger than the grace period stays")
        // With no grace, the orphan goes as soon as its timestamp is in the past (stores keep whole seconds).
        let deadline = Date().addingTimeInterval(15)
        var orphanGone = false
        while !orphanGone, Date() < deadline {
            _ = try await store.collectGarbage(referenced: [referenced.key], grace: 0)
            orphanGone = await Self.isMissing(store, orphan)
            if !orphanGone { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(orphanGone, "an old unrecorded blob survived the sweep")
        #expect(try await Self.readAll(store, referenced) == Data("recorded".utf8), "a recorded blob stays, however old")
    }

    // MARK: Helpers

    private func expectNothingLeft(_ subject: Subject, before: Set<String>) async throws {
        // Clean-up may finish just after the error is thrown (an abort in flight): poll briefly.
        let deadline = Date().addingTimeInterval(10)
        var left = try await subject.contents().subtracting(before)
        while !left.isEmpty, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            left = try await subject.contents().subtracting(before)
        }
        #expect(left.isEmpty, "a failed write left \(left.sorted()) behind")
    }

    private static func readAll(_ store: any BlobStore, _ blob: StoredBlob) async throws -> Data {
        var data = Data()
        for try await chunk in try await store.read(blob.key, size: blob.size) { data.append(contentsOf: chunk.readableBytesView) }
        return data
    }

    private static func isMissing(_ store: any BlobStore, _ blob: StoredBlob) async -> Bool {
        do {
            for try await _ in try await store.read(blob.key, size: blob.size) {}
            return false
        } catch BlobStoreError.notFound {
            return true
        } catch {
            return false
        }
    }
}
