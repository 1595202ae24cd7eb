import ArgumentParser
import Foundation
import NIOCore
import Logging
import WOPIHost

/// `--discovery`: require WOPI proof keys on every `/wopi` request.
struct ProofKeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A WOPI client's discovery XML (a path or an http(s) URL). When given, every /wopi request must carry a valid X-WOPI-Proof; failures answer 500.",
        valueName: "path-or-url"))
    var discovery: String?

    /// Loads the keys when `--discovery` is given; a host asked to check proofs never starts without keys.
    func loadCache(logger: Logger) async throws -> ProofKeyCache? {
        guard let discovery else { return nil }
        do {
            return try await ProofKeyCache(source: DiscoverySource(discovery), fetch: DiscoveryHTTP.fetch(timeout: .seconds(15)), logger: logger)
        } catch {
            throw CLIError.InvalidInput("cannot read proof keys from --discovery '\(discovery)': \(error)")
        }
    }
}
