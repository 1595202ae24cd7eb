import ArgumentParser
import WOPIHTTPClient

/// How the commands that judge a host (`check-host`, `validate`, `simulate`, `onboarding`) wait for it
/// and how much of an answer they read: one limit for all of them.
struct HostRequestOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The longest one request to the host may take, in seconds (1–3600).", valueName: "seconds"))
    var timeout: Int = 60

    @Option(name: .customLong("max-body-size"), help: ArgumentHelp(
        "The largest answer body read from the host, in MiB (1–4096); reading stops there and the request fails.", valueName: "mib"))
    var maxBodySize: Int = AsyncHTTPClientTransport.defaultMaximumBodySize >> 20

    func validate() throws {
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout \(timeout): give a number of seconds from 1 to 3600") }
        guard (1...4096).contains(maxBodySize) else { throw ValidationError("--max-body-size \(maxBodySize): give a number of MiB from 1 to 4096") }
    }

    /// The limits, as a value tasks can share.
    var limits: HostRequestLimits { HostRequestLimits(timeout: .seconds(timeout), maximumBodySize: maxBodySize << 20) }

    /// Runs `body` with a transport that keeps to these limits.
    func withTransport<Result: Sendable>(_ body: (AsyncHTTPClientTransport) async throws -> Result) async throws -> Result {
        try await limits.withTransport(body)
    }
}

/// How long one request to a host may take and how much of its answer is read.
struct HostRequestLimits: Sendable {
    var timeout: Duration = .seconds(60)
    var maximumBodySize = AsyncHTTPClientTransport.defaultMaximumBodySize

    /// Runs `body` with a transport that keeps to these limits.
    func withTransport<Result: Sendable>(_ body: (AsyncHTTPClientTransport) async throws -> Result) async throws -> Result {
        try await AsyncHTTPClientTransport.withTransport(timeout: timeout, maximumBodySize: maximumBodySize, body)
    }
}
