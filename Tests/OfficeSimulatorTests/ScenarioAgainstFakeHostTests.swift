import Foundation
import OfficeSimulator
import OfficeURLScheme
import Testing
import WOPIHTTPClient

/// Each scenario passes against a fake host that behaves, and fails at the right step,
/// with the host's answer, against a fake host with the matching fault.
@Suite("Scenarios against fake hosts")
struct ScenarioAgainstFakeHostTests {
    static func play(_ scenario: SimulationScenario, on host: FakeOfficeHost, accessToken: String? = nil,
                     mode: OfficeCommand = .edit) async throws -> (Result<SimulationResult, SimulationFailure>, [SimulationStep]) {
        let options = SimulationOptions(invokeURI: try host.invokeURI(mode), bootstrapperURL: accessToken == nil ? host.bootstrapperURL : nil,
                                        webCredentials: accessToken == nil ? SimulatorAgainstFakeHostTests.web : nil,
                                        registration: SimulatorAgainstFakeHostTests.registration, scenario: scenario, accessToken: accessToken)
        let reported = StepRecorder()
        let outcome = try await AsyncHTTPClientTransport.withTransport { transport in
            do throws(SimulationFailure) {
                return Result<SimulationResult, SimulationFailure>.success(
                    try await OfficeSimulator(options: options, transport: transport).run { reported.append($0) })
            } catch {
                return .failure(error)
            }
        }
        return (outcome, reported.steps)
    }

    /// The failure of `scenario` against a host with `defect`.
    static func failure(_ scenario: SimulationScenario, _ defect: FakeOfficeHost.Defect) async throws -> SimulationFailure {
        try await FakeOfficeHost.withRunning(defect: defect) { host in
            try #require(try await play(scenario, on: host).0.failure, "\(scenario) passed against a host with \(defect)")
        }
    }

    // MARK: Passing

    @Test("browse walks the root, the folders and the Office files, and skips what the filter excludes")
    func browsePasses() async throws {
        try await FakeOfficeHost.withRunning { host in
            let (outcome, reported) = try await Self.play(.browse, on: host)
            let result = try outcome.get()
            #expect(result.steps == reported && result.notApplicable == nil)
            #expect(reported.filter { $0.name == .checkContainerInfo }.count == 2)
            let listed = reported.filter { $0.name == .checkListedFileInfo }.map(\.detail)
            #expect(listed.count == 2)
            #expect(listed.contains { $0.contains("'Alice's files/Budget.xlsx'") })
            #expect(listed.contains { $0.contains("'Alice's files/Reports/Quarterly report.docx'") })
            #expect(!listed.contains { $0.contains("notes.txt") })
        }
    }

    @Test("create makes a new document in the file's folder, then opens, edits and saves it")
    func createPasses() async throws {
        try await FakeOfficeHost.withRunning { host in
            let result = try await Self.play(.create, on: host).0.get()
            #expect(result.steps.contains { $0.name == .createChildFile && $0.detail.contains("got 'New document.docx'") })
            #expect(await host.state.fileNames.contains("New document.docx"))
            #expect(result.versionBefore == "v1" && result.versionAfter == "v2")
            #expect(result.savedContent == Data(ContentEdit.marker.utf8))
        }
    }

    @Test("save-as makes a new file with the edited content and leaves the original alone")
    func saveAsPasses() async throws {
        try await FakeOfficeHost.withRunning { host in
            let result = try await Self.play(.saveAs, on: host).0.get()
            #expect(await host.state.fileNames.contains("Quarterly report (saved as on iOS).docx"))
            #expect(await host.state.content == Data("original content".utf8))
            #expect(result.savedContent == Data("original content".utf8) + Data(ContentEdit.marker.utf8))
        }
    }

    @Test("rename holds the lock, the same WOPISrc shows the new name, and the file gets its name back before Unlock")
    func renamePasses() async throws {
        try await FakeOfficeHost.withRunning { host in
            let result = try await Self.play(.rename, on: host).0.get()
            #expect(result.steps.contains { $0.name == .checkFileInfoAfterRename && $0.detail.contains("Quarterly report renamed on iOS.docx") })
            #expect(result.steps.contains { $0.name == .renameFileBack && $0.detail == "renamed back to 'Quarterly report.docx'" })
            #expect(await host.state.fileNames.contains("Quarterly report.docx"))
            #expect(!(await host.state.fileNames.contains("Quarterly report renamed on iOS.docx")))
            #expect(await host.state.operations == ["GET_LOCK", "REFRESH_LOCK", "LOCK", "RENAME_FILE", "RENAME_FILE", "UNLOCK"])
            #expect(await host.state.lock == nil)
        }
    }

    @Test("conflict: the host answers 409 with the other device's lock and keeps the content")
    func conflictPasses() async throws {
        try await FakeOfficeHost.withRunning { host in
            let result = try await Self.play(.conflict, on: host).0.get()
            let shown = try #require(result.steps.first { $0.name == .lockConflict })
            #expect(shown.detail.contains("locked by another user"))
            #expect(await host.state.content == Data("original content".utf8))
            #expect(await host.state.lock == nil)
            #expect(await host.state.operations == ["LOCK", "GET_LOCK", "LOCK", "PUT", "UNLOCK"])
        }
    }

    @Test("conflict on a file another client has locked: that lock plays the other device, nothing is written, the lock stays")
    func conflictWithAForeignLock() async throws {
        try await FakeOfficeHost.withRunning { host in
            await host.state.lockAsAnotherClient("another-client-lock")
            let result = try await Self.play(.conflict, on: host).0.get()
            let taken = try #require(result.steps.first { $0.name == .otherDeviceLock })
            #expect(taken.outcome == .passed && taken.detail.contains("already locked by another client ('another-client-lock')"))
            #expect(result.steps.first { $0.name == .lockConflict }?.detail.contains("'another-client-lock'") == true)
            #expect(result.steps.first { $0.name == .otherDeviceUnlock }?.outcome == .skipped)
            #expect(await host.state.content == Data("original content".utf8))
            #expect(await host.state.lock == "another-client-lock")
            #expect(await host.state.operations == ["LOCK", "GET_LOCK", "LOCK", "PUT"], "no Unlock of a lock that is not the simulator's")
        }
    }

    @Test("a missing IsEduUser fails open-edit-save at CheckFileInfo; the scenarios that do not read it still pass")
    func scenariosFailOnlyOnWhatTheyRead() async throws {
        try await FakeOfficeHost.withRunning(defect: .checkFileInfoWithoutIsEduUser) { host in
            let failure = try #require(try await Self.play(.openEditSave, on: host).0.failure)
            #expect(failure.step == .checkFileInfo && failure.reason == "IsEduUser is missing; Office for iOS requires it")
            for scenario in [SimulationScenario.rename, .conflict, .uploadPending, .saveAs] {
                let (outcome, _) = try await Self.play(scenario, on: host)
                #expect(outcome.failure == nil, "\(scenario): \(outcome.failure?.description ?? "")")
            }
        }
    }


    func tokenRefreshPasses() async throws {
        try await FakeOfficeHost.withRunning { host in
            let result = try await Self.play(.tokenRefresh, on: host).0.get()
            let names = result.steps.map(\.name)
            let refresh = try #require(names.firstIndex(of: .refreshToken))
            let again = try #require(names.firstIndex(of: .getNewAccessTokenAfterRefresh))
            #expect(refresh < again && again < (names.firstIndex(of: .putFile) ?? 0))
            #expect(result.steps[refresh].detail.contains("sc sent back"))
            #expect(result.versionAfter == "v2")
        }
    }

    @Test("upload-pending: the dropped upload leaves nothing, |z|yes| then the retried save and |z|no|")
    func uploadPendingPasses() async throws {
        try await FakeOfficeHost.withRunning(content: Data(repeating: 0x41, count: 64 * 1024)) { host in
            let result = try await Self.play(.uploadPending, on: host).0.get()
            let pending = try #require(result.steps.first { $0.name == .pendingPassback })
            #expect(pending.detail.contains("|z|yes|"))
            #expect(result.passback?.uploadPending == false)
            #expect(result.passback?.string.contains("|z|no|") == true)
            #expect(result.steps.last?.name == .passback)
            let (content, version) = await host.state.file()
            #expect(content == result.savedContent && version == "v2")
            // The dropped upload never reached the state: one PUT, the retry.
            #expect(await host.state.operations.filter { $0 == "PUT" }.count == 1)
        }
    }

    @Test("with an access token the file scenarios skip the sign-in; browse and token-refresh do not apply")
    func accessTokenMode() async throws {
        try await FakeOfficeHost.withRunning { host in
            let token = host.state.wopiToken
            let (outcome, reported) = try await Self.play(.openEditSave, on: host, accessToken: token)
            #expect(try outcome.get().versionAfter == "v2")
            #expect(reported.first { $0.name == .givenAccessToken } != nil)
            #expect(!reported.contains { [.bootstrapperChallenge, .webSignIn, .tokenExchange].contains($0.name) })
            let browse = try await Self.play(.browse, on: host, accessToken: token).0.get()
            #expect(browse.notApplicable?.contains("needs the bootstrapper") == true)
            #expect(try await Self.play(.conflict, on: host, accessToken: token).0.get().notApplicable == nil)
        }
    }

    @Test("a wrong access token fails at CheckFileInfo with the host's 401")
    func wrongAccessToken() async throws {
        try await FakeOfficeHost.withRunning { host in
            let failure = try #require(try await Self.play(.openEditSave, on: host, accessToken: "nope").0.failure)
            #expect(failure.step == .checkFileInfo && failure.answer?.status == 401)
        }
    }

    // MARK: Faults

    @Test("browse catches licensing that differs between folder and file")
    func browseLicensing() async throws {
        let failure = try await Self.failure(.browse, .containerLicensingDiffers)
        #expect(failure.step == .checkListedFileInfo)
        #expect(failure.reason.contains("IsEduUser is false on the file but true on its folder"))
    }

    @Test("browse catches a host that ignores the extension filter")
    func browseFilter() async throws {
        let failure = try await Self.failure(.browse, .ignoresExtensionFilter)
        #expect(failure.step == .enumerateChildren)
        #expect(failure.reason.contains("'notes.txt'") && failure.answer?.status == 200)
    }

    @Test("create catches a CreateChildFile Url without a token")
    func createWithoutToken() async throws {
        let failure = try await Self.failure(.create, .createChildFileWithoutToken)
        #expect(failure.step == .createChildFile && failure.reason.contains("access_token"))
        #expect(failure.answer?.bodyExcerpt.contains("New document.docx") == true)
    }

    @Test("save-as catches a PutRelativeFile Name that is not the new file's")
    func saveAsNameMismatch() async throws {
        let failure = try await Self.failure(.saveAs, .putRelativeNameMismatch)
        #expect(failure.step == .openNewFile)
        #expect(failure.reason.contains("'Another name.docx'"))
    }

    @Test("rename catches a host whose rename loses the file id, with the 404, and says what it could not put back")
    func renameLosesID() async throws {
        let failure = try await Self.failure(.rename, .renameLosesID)
        #expect(failure.step == .checkFileInfoAfterRename)
        #expect(failure.answer?.status == 404)
        #expect(failure.reason.hasPrefix("the file's WOPISrc answers 404 since the rename"), "\(failure.reason)")
        #expect(failure.leftovers.count == 1, "\(failure.leftovers)")
        let leftover = try #require(failure.leftovers.first)
        #expect(leftover.hasPrefix("'Quarterly report.docx' is now named 'Quarterly report renamed on iOS.docx' and still locked by 'WOPIKit-simulator-"),
                "\(leftover)")
    }

    @Test("rename on a host that does not offer renaming is not applicable, and nothing but CheckFileInfo is sent")
    func renameNotOffered() async throws {
        try await FakeOfficeHost.withRunning(defect: .noRename) { host in
            let result = try await Self.play(.rename, on: host, accessToken: nil).0.get()
            #expect(result.notApplicable?.contains("SupportsRename") == true, "\(result.steps)")
            let operations = await host.state.operations
            #expect(operations.isEmpty, "no GetLock, Lock or RenameFile: \(operations)")
            #expect(!result.steps.contains { $0.name == .getLock || $0.name == .lock })
        }
    }

    @Test("after a rename lost the file, a 404 to Lock names the file, not Lock")
    func notFoundDoesNotBlameLock() async throws {
        try await FakeOfficeHost.withRunning(defect: .renameLosesID) { host in
            _ = try await Self.play(.rename, on: host)
            let failure = try #require(try await Self.play(.conflict, on: host).0.failure)
            #expect(failure.step == .otherDeviceLock)
            #expect(failure.reason.hasPrefix("Lock answered 404: the host does not know the file"), "\(failure.reason)")
        }
    }

    @Test("conflict catches a host that gives a second lock instead of 409, and leaves no lock behind")
    func conflictWithoutConflict() async throws {
        try await FakeOfficeHost.withRunning(defect: .secondLockWins) { host in
            let failure = try #require(try await Self.play(.conflict, on: host).0.failure)
            #expect(failure.step == .lockConflict)
            #expect(failure.answer?.status == 200 && failure.reason.contains("must answer 409"))
            #expect(await host.state.lock == nil, "the simulator releases the locks it took when a step fails")
            #expect(await host.state.content == Data("original content".utf8))
        }
    }

    @Test("conflict catches a 409 without the current lock")
    func conflictWithoutLockHeader() async throws {
        let failure = try await Self.failure(.conflict, .forgetsLockHeaderOn409)
        #expect(failure.step == .lockConflict)
        #expect(failure.answer?.status == 409 && failure.reason.contains("X-WOPI-Lock"))
    }

    @Test("token-refresh catches a refused refresh grant, with the host's error")
    func refreshRefused() async throws {
        let failure = try await Self.failure(.tokenRefresh, .refusesRefreshGrant)
        #expect(failure.step == .refreshToken)
        #expect(failure.answer?.status == 400 && failure.answer?.bodyExcerpt.contains("invalid_grant") == true)
    }

    @Test("upload-pending catches a host that keeps a truncated upload")
    func uploadKeepsTruncated() async throws {
        let failure = try await FakeOfficeHost.withRunning(defect: .keepsTruncatedUpload, content: Data(repeating: 0x41, count: 64 * 1024)) { host in
            try #require(try await Self.play(.uploadPending, on: host).0.failure)
        }
        #expect(failure.step == .checkFileInfoAfterDrop)
        #expect(failure.reason.contains("kept part of an upload"))
    }

    @Test("a scenario that edits does not apply to a view-mode invoke URI")
    func viewModeNotApplicable() async throws {
        try await FakeOfficeHost.withRunning { host in
            let result = try await Self.play(.conflict, on: host, mode: .view).0.get()
            #expect(result.notApplicable?.contains("ofv") == true)
            #expect(await host.state.operations.isEmpty)
        }
    }
}
