import Hummingbird

/// Liveness and readiness for orchestrators and load balancers.
///
/// `GET /health/live` answers 200 while the process serves requests. `GET /health/ready` answers 200
/// when the metadata store and the blob store both work, and 503 with the reason otherwise, so a
/// balancer stops sending traffic to an instance whose database or disk went away.
struct HealthController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend

    func addRoutes(to router: Router<Context>) {
        router.get("health/live") { _, _ in "ok\n" }
        router.get("health/ready") { _, _ in try await ready() }
    }

    private func ready() async throws -> Response {
        var problems: [String] = []
        do { try await backend.store.checkReadiness() } catch { problems.append("store: \(error)") }
        do { try await backend.blobs.checkReadiness() } catch { problems.append("blobs: \(error)") }
        guard problems.isEmpty else { throw WOPIError(.serviceUnavailable, "not ready: " + problems.joined(separator: "; ")) }
        return Response(status: .ok, body: .init(byteBuffer: .init(string: "ready\n")))
    }
}
