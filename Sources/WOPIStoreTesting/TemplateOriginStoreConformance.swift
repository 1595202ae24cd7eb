import Foundation
import Testing
import WOPICore
import WOPIHost

/// The promises every `TemplateOriginStore` keeps (which template each new document was made from,
/// what CheckFileInfo's `TemplateSource` is built from), as checks you run against your own store from
/// Swift Testing. The store is a `WOPIStore` too: records are about its files.
///
/// ```swift
/// @Test(arguments: TemplateOriginStoreConformance.Check.allCases)
/// func myTemplateOrigins(_ check: TemplateOriginStoreConformance.Check) async throws {
///     try await TemplateOriginStoreConformance { try await MyStore.makeEmptyDatabase().templateSubject() }.run(check)
/// }
/// ```
///
/// Each check asks `makeSubject` for a connection to new, empty storage used by nothing else, connects to it
/// again where it needs a second host, closes every connection when it ends, and reports failures as Swift
/// Testing issues.
public struct TemplateOriginStoreConformance: ConformanceSuite {
    /// A store under test: a connection to empty storage, and the means to connect to it again.
    public typealias Subject = StoreSubject<any WOPIStore & TemplateOriginStore>

    /// One promise.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A record is read back (on another host too), a new record of the same file replaces it, a file made from
        /// no template has none, and a record naming a file that does not exist is refused as not found.
        case originsAreRecordedReadAndReplaced
        /// A record goes when its document or its template is deleted, purged from the trash, or removed with its
        /// owner; trashing alone keeps it, so a restored document keeps its template.
        case aRecordGoesWithEitherFile

        /// The check's name.
        public var testDescription: String { rawValue }
    }

    private let makeSubject: @Sendable () async throws -> Subject

    /// Checks over the stores `makeSubject` returns: each call, new and empty storage.
    public init(makeSubject: @escaping @Sendable () async throws -> Subject) {
        self.makeSubject = makeSubject
    }

    /// Runs one check.
    public func run(_ check: Check) async throws {
        try await makeSubject().closing { subject in
            switch check {
            case .originsAreRecordedReadAndReplaced: try await originsAreRecordedReadAndReplaced(subject)
            case .aRecordGoesWithEitherFile: try await aRecordGoesWithEitherFile(subject.store)
            }
        }
    }

    private static let now = Date(timeIntervalSince1970: 1_800_000_000.25)

    private static func file(_ name: String, of user: UserRecord, in store: any WOPIStore, size: Int64 = 0) async throws -> FileRecord {
        try await store.createFile(named: name, in: user.rootContainerID, blob: .fake(size: size, tag: name), replacing: false, now: now).file
    }

    private func originsAreRecordedReadAndReplaced(_ subject: Subject) async throws {
        let store = subject.store
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
        let letter = try await Self.file("Letter.ott", of: alice, in: store, size: 900)
        let memo = try await Self.file("Memo.ott", of: alice, in: store, size: 700)
        let document = try await Self.file("Letter.odt", of: alice, in: store)
        let plain = try await Self.file("Plain.odt", of: alice, in: store)

        try await store.recordTemplateOrigin(of: document.id, template: letter.id)
        #expect(try await store.templateOrigin(of: document.id) == letter.id)
        #expect(try await store.templateOrigin(of: plain.id) == nil, "a file made from no template has no record")
        #expect(try await store.templateOrigin(of: letter.id) == nil, "the template itself has none")
        try await subject.withSecondHost { other async throws in
            #expect(try await other.templateOrigin(of: document.id) == letter.id, "another host reads the record")
        }

        try await store.recordTemplateOrigin(of: document.id, template: memo.id)
        #expect(try await store.templateOrigin(of: document.id) == memo.id, "a new record replaces the old one")

        await #expect(throws: WOPIStoreError.notFound) { try await store.recordTemplateOrigin(of: .random(), template: letter.id) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.recordTemplateOrigin(of: plain.id, template: .random()) }
        #expect(try await store.templateOrigin(of: plain.id) == nil, "a refused record leaves nothing")
        #expect(try await store.templateOrigin(of: .random()) == nil)
    }

    private func aRecordGoesWithEitherFile(_ store: any WOPIStore & TemplateOriginStore) async throws {
        let now = Self.now
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
        let template = try await Self.file("Letter.dotx", of: alice, in: store, size: 900)

        // Deleting the document takes its record.
        let deleted = try await Self.file("Deleted.docx", of: alice, in: store)
        try await store.recordTemplateOrigin(of: deleted.id, template: template.id)
        _ = try await store.deleteFile(deleted.id, lock: nil, now: now)
        #expect(try await store.templateOrigin(of: deleted.id) == nil)

        // Trashing keeps it (a restore brings the document back as it was); purging takes it.
        let trashed = try await Self.file("Trashed.docx", of: alice, in: store)
        try await store.recordTemplateOrigin(of: trashed.id, template: template.id)
        _ = try await store.trashFile(trashed.id, lock: nil, now: now)
        #expect(try await store.templateOrigin(of: trashed.id) == template.id, "trashing alone keeps the record")
        _ = try await store.emptyTrash(ownedBy: alice.id, trashedBefore: nil)
        #expect(try await store.templateOrigin(of: trashed.id) == nil, "purging takes it")

        // Deleting the template takes the records of the documents made from it; they stay.
        let kept = try await Self.file("Kept.docx", of: alice, in: store)
        try await store.recordTemplateOrigin(of: kept.id, template: template.id)
        _ = try await store.deleteFile(template.id, lock: nil, now: now)
        #expect(try await store.templateOrigin(of: kept.id) == nil)
        #expect(try await store.file(id: kept.id) != nil, "the document outlives its template")

        // Removing the owner takes everything.
        let bob = try await store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
        let bobsTemplate = try await Self.file("Deck.potx", of: bob, in: store, size: 800)
        let bobsDeck = try await Self.file("Deck.pptx", of: bob, in: store)
        try await store.recordTemplateOrigin(of: bobsDeck.id, template: bobsTemplate.id)
        _ = try await store.removeUser(id: bob.id)
        #expect(try await store.templateOrigin(of: bobsDeck.id) == nil)
    }
}
