import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// Paged listings, run against SQLite and a real PostgreSQL server: pages concatenate to
/// exactly ``WOPIStore/children(of:)``, in the same case-insensitive name order, on both stores.
@Suite("Store conformance: paged children")
struct ChildPagingStoreConformanceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000.125)

    @Test(arguments: StoreKind.allCases)
    func pagesConcatenateToTheChildrenInNameOrder(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "pat", displayName: "Pat", passwordHash: .unusable)
            let root = user.rootContainerID
            let other = try await store.createContainer(named: "Elsewhere", in: root)
            let names = ["b.docx", "A.docx", "a1.docx", "Zeta.xlsx", "_under.docx", "z.docx", "B0.pptx", "~tilde.docx", "[x].docx", "ÉTÉ.docx"]
            for name in names {
                _ = try await store.createFile(named: name, in: root, blob: fakeBlob(), replacing: false, now: now)
            }
            _ = try await store.createFile(named: "a0.docx", in: other.id, blob: fakeBlob(), replacing: false, now: now)
            for name in ["beta", "Alpha", "gamma", "Delta"] { _ = try await store.createContainer(named: name, in: root) }

            let children = try await store.children(of: root)
            for limit in [1, 2, 3, 100] {
                let files = try await Self.allPages(limit: limit, name: \.name) { try await store.childFiles(of: root, after: $0, limit: limit) }
                #expect(files == children.files, "limit \(limit)")
                let containers = try await Self.allPages(limit: limit, name: \.name) {
                    try await store.childContainers(of: root, after: $0, limit: limit)
                }
                #expect(containers == children.containers, "limit \(limit)")
            }
            #expect(children.files.count == names.count)
            // The cursor compares case-insensitively: "B0.PPTX" starts after "b0.pptx", whatever its case.
            let afterB = try await store.childFiles(of: root, after: "B0.PPTX", limit: 100).map(\.name)
            #expect(afterB == Array(children.files.map(\.name).drop { $0 != "B0.pptx" }.dropFirst()))
            #expect(try await store.childFiles(of: .random(), after: nil, limit: 10).isEmpty)
            #expect(try await store.childContainers(of: other.id, after: nil, limit: 10).isEmpty)
        }
    }

    /// A listing read page by page, as EnumerateChildren reads it: each page after the last name of the one
    /// before, until a page comes back short. Every page holds at most `limit` records.
    private static func allPages<Record>(limit: Int, name: KeyPath<Record, String>,
                                         _ page: (_ after: String?) async throws -> [Record]) async throws -> [Record] {
        var records: [Record] = []
        var cursor: String?
        repeat {
            let next = try await page(cursor)
            #expect(next.count <= limit)
            records += next
            cursor = next.count == limit ? next.last?[keyPath: name] : nil
        } while cursor != nil
        return records
    }
}
