import Foundation
import OfficeSimulator
import OfficeURLScheme
import Testing
import WOPIHTTPClient

/// The simulator against small hosts in this suite: one that behaves, and one per defect the
/// simulator must catch, each at the right step.
@Suite("Office simulator against fake hosts")
struct SimulatorAgainstFakeHostTests {
    static let registration = OfficeClientRegistration(clientID: FakeOfficeHost.clientID, clientSecret: FakeOfficeHost.clientSecret,
                                                       redirectURI: FakeOfficeHost.redirectURI)
    static let web = SimulationOptions.WebCredentials(username: FakeOfficeHost.username, password: FakeOfficeHost.password)

    /// Runs the simulator against `host` and returns the result or the failure, plus every step reported.
    static func simulate(_ host: FakeOfficeHost, mode: OfficeCommand = .edit, credentials: SimulationOptions.WebCredentials? = web,
                         app: (any AppSignInLauncher)? = nil, replacement: Data? = nil)
        async throws -> (Result<SimulationResult, SimulationFailure>, [SimulationStep]) {
        let options = SimulationOptions(invokeURI: try host.invokeURI(mode), bootstrapperURL: host.bootstrapperURL,
                                        webCredentials: credentials, installedApp: app, registration: registration,
                                        replacementContent: replacement)
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

    @Test("a well-behaved host passes every step of the web sign-in and the edit, and the file is saved")
    func wellBehavedHostInEditMode() async throws {
        try await FakeOfficeHost.withRunning { host in
            let (outcome, reported) = try await Self.simulate(host, replacement: Data("new content".utf8))
            let result = try outcome.get()
            #expect(result.steps == reported)
            #expect(reported.map(\.name) == [.invokeURI, .bootstrapperChallenge, .webSignIn, .tokenExchange, .bootstrap, .getNewAccessToken,
                                             .checkFileInfo, .getLock, .refreshLockProbe, .lock, .getFile, .putFile,
                                             .checkFileInfoAfterSave, .unlock, .passback])
            #expect(reported.allSatisfy { $0.outcome == .passed })
            #expect(result.versionBefore == "v1" && result.versionAfter == "v2")
            let (content, version) = await host.state.file()
            #expect(content == Data("new content".utf8) && version == "v2")
            #expect(await host.state.lock == nil)
            #expect(await host.state.operations == ["GET_LOCK", "REFRESH_LOCK", "LOCK", "PUT", "UNLOCK"])
            let passback = try #require(result.passback)
            #expect(passback.scheme == "clouddrive" && passback.uploadPending == false && passback.context == "folder:Q4")
            #expect(passback.documentURL == host.wopiSrc)
        }
    }

    @Test("without replacement content the simulator saves a deterministic change")
    func deterministicEdit() async throws {
        try await FakeOfficeHost.withRunning(content: Data("abc".utf8)) { host in
            let (outcome, _) = try await Self.simulate(host)
            let result = try outcome.get()
            let (content, _) = await host.state.file()
            #expect(content == Data("abc".utf8) + Data(ContentEdit.marker.utf8))
            #expect(result.savedContent == content)
        }
    }

    @Test("view mode takes no lock and writes nothing")
    func viewMode() async throws {
        try await FakeOfficeHost.withRunning { host in
            let (outcome, _) = try await Self.simulate(host, mode: .view)
            let result = try outcome.get()
            let skipped = result.steps.filter { $0.outcome == .skipped }.map(\.name)
            #expect(skipped == [.lock, .putFile, .checkFileInfoAfterSave, .unlock])
            #expect(await host.state.operations == ["GET_LOCK", "REFRESH_LOCK"])
            let (content, version) = await host.state.file()
            #expect(content == Data("original content".utf8) && version == "v1")
            #expect(result.versionAfter == nil && result.passback?.uploadPending == false)
        }
    }

    @Test("app-to-app sign-in opens the app with Office's request and uses the code it returns")
    func appToAppSignIn() async throws {
        try await FakeOfficeHost.withRunning { host in
            let app = ClosureApp { requestURL in
                guard let request = try? SignInRequest(string: requestURL), request.scheme == FakeOfficeHost.appScheme,
                      request.clientID == FakeOfficeHost.clientID, request.officeApp == "word", request.responseType == "code"
                else { return "ms-word-tp:error=invalid_request&action=" }
                let code = await host.state.newCode()
                return (try? request.response(code: code, sessionContext: FakeOfficeHost.sessionContext).string) ?? ""
            }
            let (outcome, _) = try await Self.simulate(host, credentials: nil, app: app)
            let result = try outcome.get()
            #expect(result.steps.map(\.name).contains(.appSignIn))
            #expect(!result.steps.map(\.name).contains(.webSignIn))
            #expect(result.versionAfter == "v2")
        }
    }

    @Test("an app that changes action is caught at app-to-app sign-in")
    func appChangesAction() async throws {
        try await FakeOfficeHost.withRunning { host in
            let app = ClosureApp { _ in "ms-word-tp:code=whatever&action=not-the-same" }
            let (outcome, reported) = try await Self.simulate(host, credentials: nil, app: app)
            let failure = try #require(outcome.failure)
            #expect(failure.step == .appSignIn)
            #expect(failure.reason.contains("action"))
            #expect(reported.last?.outcome == .failed && reported.last?.name == .appSignIn)
        }
    }

    @Test("an app that answers on another Office app's scheme is caught at app-to-app sign-in")
    func appAnswersWrongScheme() async throws {
        try await FakeOfficeHost.withRunning { host in
            let app = ClosureApp { requestURL in
                let action = (try? SignInRequest(string: requestURL))?.action ?? ""
                return "ms-excel-tp:code=c&action=\(action)"
            }
            let failure = try #require(try await Self.simulate(host, credentials: nil, app: app).0.failure)
            #expect(failure.step == .appSignIn && failure.reason.contains("ms-word-tp"))
        }
    }

    @Test("a wrong password is reported at web sign-in with the page's error message")
    func wrongPassword() async throws {
        try await FakeOfficeHost.withRunning { host in
            let wrong = SimulationOptions.WebCredentials(username: FakeOfficeHost.username, password: "nope")
            let failure = try #require(try await Self.simulate(host, credentials: wrong).0.failure)
            #expect(failure.step == .webSignIn)
            #expect(failure.reason.contains("Wrong user name or password."))
            #expect(failure.answer?.status == 401)
            #expect(await host.state.operations.isEmpty)
        }
    }

    @Test("a host that forgets X-WOPI-Lock on a 409 fails at the RefreshLock probe")
    func forgetsLockHeader() async throws {
        try await FakeOfficeHost.withRunning(defect: .forgetsLockHeaderOn409) { host in
            let (outcome, reported) = try await Self.simulate(host)
            let failure = try #require(outcome.failure)
            #expect(failure.step == .refreshLockProbe)
            #expect(failure.reason.contains("X-WOPI-Lock"))
            #expect(failure.answer?.status == 409)
            #expect(failure.answer?.headers.contains { $0.name.lowercased() == "x-wopi-lockfailurereason" } == true)
            #expect(reported.last == SimulationStep(name: .refreshLockProbe, outcome: .failed, detail: failure.description))
            // Office stops there: no lock taken, nothing written.
            #expect(await host.state.operations == ["GET_LOCK", "REFRESH_LOCK"])
        }
    }

    @Test("a host that lets a second lock win fails at the RefreshLock probe")
    func secondLockWins() async throws {
        try await FakeOfficeHost.withRunning(defect: .secondLockWins) { host in
            let failure = try #require(try await Self.simulate(host).0.failure)
            #expect(failure.step == .refreshLockProbe)
            #expect(failure.answer?.status == 200)
            #expect(failure.reason.contains("must answer 409"))
            #expect(await host.state.content == Data("original content".utf8))
        }
    }

    @Test("a host whose CheckFileInfo lacks Version fails at CheckFileInfo")
    func checkFileInfoWithoutVersion() async throws {
        try await FakeOfficeHost.withRunning(defect: .checkFileInfoWithoutVersion) { host in
            let failure = try #require(try await Self.simulate(host).0.failure)
            #expect(failure.step == .checkFileInfo)
            #expect(failure.reason == "the required property Version is missing")
            #expect(failure.answer?.status == 200 && failure.answer?.bodyExcerpt.contains("BaseFileName") == true)
            #expect(await host.state.operations.isEmpty)
        }
    }

    @Test("a CheckFileInfo UserId other than the invoke URI's |e| fails at CheckFileInfo")
    func userMismatch() async throws {
        try await FakeOfficeHost.withRunning { host in
            let invoke = try OfficeInvokeURI(app: .word, command: .edit, documentURL: host.wopiSrc, service: "FakeHost", user: "someone-else",
                                             fileName: FakeOfficeHost.fileName, source: .app)
            let options = SimulationOptions(invokeURI: invoke, bootstrapperURL: host.bootstrapperURL, webCredentials: Self.web,
                                            registration: Self.registration)
            let failure = try await AsyncHTTPClientTransport.withTransport { transport in
                do throws(SimulationFailure) {
                    _ = try await OfficeSimulator(options: options, transport: transport).run()
                    return SimulationFailure?.none
                } catch {
                    return error
                }
            }
            #expect(failure?.step == .checkFileInfo)
            #expect(failure?.reason.contains("|e| 'someone-else'") == true)
        }
    }

    @Test("a host that is not listening fails at the bootstrapper challenge, naming the URL")
    func nothingListening() async throws {
        let port = try await FakeOfficeHost.withRunning { host in host.baseURL.port ?? 0 } // free again once stopped
        let invoke = try OfficeInvokeURI(app: .word, command: .view, documentURL: "http://127.0.0.1:\(port)/wopi/files/x", service: "S",
                                         user: "u", fileName: "a.docx", source: .app)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/wopibootstrapper"))
        let options = SimulationOptions(invokeURI: invoke, bootstrapperURL: url, webCredentials: Self.web)
        let failure = try await AsyncHTTPClientTransport.withTransport { transport in
            do throws(SimulationFailure) {
                _ = try await OfficeSimulator(options: options, transport: transport).run()
                return SimulationFailure?.none
            } catch {
                return error
            }
        }
        #expect(failure?.step == .bootstrapperChallenge)
        #expect(failure?.reason.contains("no answer from http://127.0.0.1:\(port)/wopibootstrapper") == true)
    }
}

/// The provider's app, played by a closure.
struct ClosureApp: AppSignInLauncher {
    let answer: @Sendable (String) async -> String

    func open(_ requestURL: String) async throws(AppSignInLaunchError) -> String {
        await answer(requestURL)
    }
}

/// Collects the steps the progress callback reports, from whatever thread it runs on.
final class StepRecorder: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [SimulationStep] = []

    func append(_ step: SimulationStep) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(step)
    }

    var steps: [SimulationStep] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

extension Result {
    /// The error, or `nil` on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
