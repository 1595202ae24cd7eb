import Foundation
import WOPIHTTPClient

/// A WOPI client that behaves like a browser editor, Office for the web or Collabora Online, so a
/// provider can check on Linux that its host serves them (``WebClientProfile``). It never needs the
/// editor itself: it plays the editor's documented requests against any host.
///
/// 1. The access: with ``WebClientSimulationOptions/hostPage`` the host page is read as a browser
///    reads it and its form taken apart as the editor receives its POST (action URL with `WOPISrc`,
///    `access_token`, `access_token_ttl`); else the given token.
/// 2. CheckFileInfo, held to the client's ``WebClientProfile/requiredProperties``; with a host page,
///    `PostMessageOrigin` must be that page's origin.
/// 3. Office for the web: Lock, GetFile, RefreshLock, PutFile with the lock and `X-WOPI-Editors`,
///    CheckFileInfo (the Version changed), Unlock.
/// 4. Collabora Online: Lock when `SupportsLocks`, GetFile, an autosave carrying
///    `X-COOL-WOPI-Timestamp` (the last `LastModifiedTime`) answered with the new `LastModifiedTime`,
///    RefreshLock, another writer's save, an autosave with the now stale timestamp that must get 409
///    with `{"COOLStatusCode":1010}` and change nothing, the exit save without the timestamp (as
///    Collabora's "overwrite" is), CheckFileInfo, Unlock. For a new document made from a template
///    (CheckFileInfo's `TemplateSource`), the template is read instead of GetFile and is the first autosave.
///
/// The first answer the editor would not accept stops the session with a ``SimulationFailure``
/// naming the step; any lock the simulator still holds is then released.
public struct WebClientSimulator: Sendable {
    /// What to simulate.
    public let options: WebClientSimulationOptions
    let transport: any HTTPTransport

    /// Creates a simulator sending its requests through `transport`.
    public init(options: WebClientSimulationOptions, transport: any HTTPTransport) {
        self.options = options
        self.transport = transport
    }

    /// Runs the session, reporting each step through `onStep` as soon as it ends (a failed step is
    /// reported too, just before the error is thrown).
    ///
    /// - Throws: ``SimulationFailure`` at the first step whose answer the editor would not accept.
    public func run(onStep: @escaping @Sendable (SimulationStep) -> Void = { _ in }) async throws(SimulationFailure) -> SimulationResult {
        // Without a WOPISrc (a host page names it), the file watched is the one whose content the editor reads first.
        let restoring = options.putsContentBack ? ContentRestoringTransport(transport, watching: options.wopiSrc) : nil
        var session = WebClientSession(simulator: restoring.map { WebClientSimulator(options: options, transport: $0) } ?? self, onStep: onStep)
        do throws(SimulationFailure) {
            var result = try await session.run()
            if let left = await restoring?.putBack() { result.leftovers.append(left) }
            return result
        } catch {
            onStep(SimulationStep(name: error.step, outcome: .failed, detail: error.description))
            var failure = error
            failure.leftovers = await session.releaseHeldLock()
            if let left = await restoring?.putBack() { failure.leftovers.append(left) }
            throw failure
        }
    }
}
