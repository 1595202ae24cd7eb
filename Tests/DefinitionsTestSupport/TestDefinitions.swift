import Foundation
import TestSupport
import WOPIValidator

/// Microsoft's validator definitions for a test run: found as `wopi validator` finds them (`$WOPI_VALIDATOR_DIR`,
/// then the XDG data folder `wopi validator fetch` installs into); where none are found, the pinned ones are
/// fetched by `wopi validator fetch`'s own code (``DefinitionsFetcher``, every file's SHA-256 checked) into
/// that same folder, once: later tests, and other test processes, find what the first fetch installed.
///
/// Where they can be neither found nor fetched (no network), each test that needs them fails with one line
/// naming `wopi validator fetch`, and every other test runs.
public enum TestDefinitions {
    /// The definitions this process's tests use, or the one-line reason there are none; asked for once.
    public static func location() async throws(Unavailable) -> DefinitionsLocation {
        try await shared.value.get().location
    }

    /// TestCases.xml of ``location()``.
    public static func testCasesURL() async throws(Unavailable) -> URL {
        try await location().testCasesURL
    }

    private static let shared = Task { await provide(environment: ProcessInfo.processInfo.environment) }

    /// What ``provide(environment:from:)`` did.
    public struct Provision: Sendable {
        /// Where the definitions are.
        public let location: DefinitionsLocation
        /// Whether this call fetched them; `false` when they were there already, or another caller fetched them meanwhile.
        public let fetched: Bool
    }

    /// Finds the definitions with `environment`; when none are found, fetches the pinned ones from `baseURL`
    /// (default: GitHub, as `wopi validator fetch`) into the XDG data folder and finds them there.
    ///
    /// A `WOPI_VALIDATOR_DIR` that holds no definitions is a mistake to report, not a reason to fetch. The fetch
    /// holds an exclusive `flock` on the folder above the destination, so that concurrent callers, in this
    /// process or another, fetch once: the others wait for the lock and then find what the first installed.
    public static func provide(environment: [String: String], from baseURL: String? = nil) async -> Result<Provision, Unavailable> {
        let missing: DefinitionsLocation.NotFound
        do {
            return .success(Provision(location: try DefinitionsLocation.find(environment: environment), fetched: false))
        } catch {
            missing = error
        }
        if let directory = environment["WOPI_VALIDATOR_DIR"], !directory.isEmpty { return .failure(Unavailable(missing.description)) }
        let destination = DefinitionsLocation.dataHomeFolder(environment: environment)
        let lock: FolderLock
        do {
            lock = try await FolderLock.acquire(destination.deletingLastPathComponent())
        } catch {
            return .failure(Unavailable(missing, fetchFailure: "\(error)"))
        }
        defer { lock.release() }
        // Another caller may have installed them while this one waited for the lock.
        if let location = try? DefinitionsLocation.find(environment: environment) {
            return .success(Provision(location: location, fetched: false))
        }
        do {
            _ = try await DefinitionsFetcher(baseURL: baseURL).install(into: destination)
            return .success(Provision(location: try DefinitionsLocation.find(environment: environment), fetched: true))
        } catch {
            return .failure(Unavailable(missing, fetchFailure: "\(error)"))
        }
    }

    /// Why a test has no definitions: one line naming `wopi validator fetch`.
    public struct Unavailable: Error, Sendable, Hashable, CustomStringConvertible {
        /// The line.
        public let description: String

        init(_ description: String) {
            self.description = description
        }

        /// Not found, and the fetch failed: both reasons, then what to run.
        init(_ missing: DefinitionsLocation.NotFound, fetchFailure: String) {
            let failure = fetchFailure.split(whereSeparator: \.isNewline).joined(separator: " ")
            self.init("\(missing.reason), and the test run could not fetch them: \(failure); "
                + "run `wopi validator fetch`, or set WOPI_VALIDATOR_DIR to a folder holding them")
        }
    }
}
