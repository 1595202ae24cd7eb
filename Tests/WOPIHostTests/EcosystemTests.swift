import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The Ecosystem endpoint (docs/rest/src/ecosystem/): CheckEcosystem and GetRootContainer.
@Suite("Ecosystem")
struct EcosystemTests {
    @Test("CheckEcosystem reports SupportsContainers matching CheckFileInfo")
    func checkEcosystem() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let response = try await host.checkEcosystem(token: host.token(doc.user, .ecosystem))
            expectStatus(response, 200)
            let fileInfo = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(try response.json()["SupportsContainers"]?.bool == true)
            let ecosystem = try response.json()
            #expect(ecosystem["SupportsContainers"] == fileInfo["SupportsContainers"])
        }
    }

    @Test("GetRootContainer points at the user's own root, whose token works for that container only")
    func rootContainer() async throws {
        try await TestHost.run { host in
            let alice = try await host.makeUser("alice")
            let bob = try await host.makeUser("bob")
            let response = try await host.rootContainer(token: host.token(alice, .ecosystem))
            expectStatus(response, 200)
            let json = try response.json()
            #expect(json["ContainerPointer"]?["Name"]?.string == "Alice's files")
            let url = try #require(json["ContainerPointer"]?["Url"]?.string)
            #expect(url.hasPrefix("\(TestHost.publicURL)/wopi/containers/\(alice.rootContainerID)?access_token="))
            let info = try await host.send(url: url)
            expectStatus(info, 200)
            #expect(try info.json()["Name"]?.string == "Alice's files")
            let checked = try info.json()
            if let containerInfo = json["ContainerInfo"] {
                #expect(containerInfo == checked, "ContainerInfo should match CheckContainerInfo")
            }
            let token = accessToken(in: url)
            expectStatus(try await host.checkEcosystem(token: token), 401)
            expectStatus(try await host.checkContainerInfo(bob.rootContainerID.rawValue, token: token), 401)
            // Browsing from the root works with the same token.
            expectStatus(try await host.send(url: url.replacingOccurrences(of: "?access_token=", with: "/children?access_token=")), 200)
            // Bob's ecosystem token leads to Bob's root.
            let bobs = try await host.rootContainer(token: host.token(bob, .ecosystem)).json()
            #expect(bobs["ContainerPointer"]?["Url"]?.string?.contains("/wopi/containers/\(bob.rootContainerID)?") == true)
        }
    }

    @Test("The mobile open flow: CheckFileInfo, GetLock, RefreshLock with a bogus lock, Lock, GetFile, PutFile, Unlock")
    func mobileFlow() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Flow.docx", Data("v1".utf8))
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 200)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
            expectLockConflict(try await host.refreshLock(doc.id, token: doc.token, "bogus-probe"), currentLock: "")
            let lock = #"{"S":"0a1b2c","E":2}"#
            expectStatus(try await host.lock(doc.id, token: doc.token, lock), 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("v1".utf8))
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: lock, Data("v2".utf8)), 200)
            expectStatus(try await host.unlock(doc.id, token: doc.token, lock), 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("v2".utf8))
        }
    }
}
