import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// Lock changes are one compare-and-set each: racing clients over real connections see exactly
/// one winner, and every loser is told the winner's lock.
@Suite("Lock races")
struct LockRaceTests {
    @Test("64 concurrent LOCK requests with different locks: one 200, 63 × 409 with the winner's lock")
    func lockRace() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let results = try await withThrowingTaskGroup(of: (String, WOPIResponse).self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let lock = "racer-\(index)"
                        return (lock, try await host.lock(doc.id, token: doc.token, lock))
                    }
                }
                var all: [(String, WOPIResponse)] = []
                for try await result in group { all.append(result) }
                return all
            }
            #expect(results.count == 64)
            let winners = results.filter { $0.1.status == 200 }
            try #require(winners.count == 1, "winners: \(winners.map(\.0)); statuses \(results.map(\.1.status))")
            let winner = winners[0].0
            let losers = results.filter { $0.1.status != 200 }
            #expect(losers.count == 63)
            for (lock, response) in losers {
                expectLockConflict(response, currentLock: winner)
                #expect(lock != winner)
            }
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == winner)
        }
    }

    @Test("Concurrent UnlockAndRelock from the same old lock: exactly one winner, the rest 409 with its new lock")
    func unlockAndRelockRace() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, "shared-old"), 200)
            let results = try await withThrowingTaskGroup(of: (String, WOPIResponse).self) { group in
                for index in 0..<32 {
                    group.addTask {
                        let new = "successor-\(index)"
                        return (new, try await host.unlockAndRelock(doc.id, token: doc.token, old: "shared-old", new: new))
                    }
                }
                var all: [(String, WOPIResponse)] = []
                for try await result in group { all.append(result) }
                return all
            }
            let winners = results.filter { $0.1.status == 200 }
            try #require(winners.count == 1, "winners: \(winners.map(\.0))")
            let winner = winners[0].0
            for (_, response) in results where response.status != 200 {
                expectLockConflict(response, currentLock: winner)
            }
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == winner)
        }
    }

    @Test("Concurrent PutFile with the lock: every write succeeds, each with its own Version, and one wins whole")
    func concurrentPutFile() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Busy.docx", Data("start".utf8))
            expectStatus(try await host.lock(doc.id, token: doc.token, "L"), 200)
            let bodies = (0..<8).map { Data("writer \($0) ".utf8) + Data(repeating: UInt8($0), count: 10_000) }
            let versions = try await withThrowingTaskGroup(of: String?.self) { group in
                for body in bodies {
                    group.addTask {
                        let response = try await host.putFile(doc.id, token: doc.token, lock: "L", body)
                        return response.status == 200 ? response.header("X-WOPI-ItemVersion") : nil
                    }
                }
                var all: [String?] = []
                for try await version in group { all.append(version) }
                return all
            }
            #expect(versions.allSatisfy { $0 != nil })
            #expect(Set(versions.compactMap { $0 }).count == bodies.count, "each write needs its own Version")
            let final = try await host.getFile(doc.id, token: doc.token)
            #expect(bodies.contains(final.body), "the content must be exactly one writer's body")
            let info = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(info["SHA256"]?.string == sha256Base64(final.body))
            #expect(info["Version"]?.string == final.header("X-WOPI-ItemVersion"))
        }
    }
}
