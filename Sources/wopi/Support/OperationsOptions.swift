import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals
import WOPICore
import WOPIHost

/// The operator's options of `wopi serve`: metrics, audit log, log format, version
/// history, draining on stop, and a configuration file.
struct OperationsOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Serve Prometheus metrics at GET /metrics on this port (on --host). Off when absent.", valueName: "port"))
    var metricsPort: Int?
    @Option(help: ArgumentHelp("Also append one JSON line per change and refusal (sign-ins, locks, saves, renames, deletes, restores, share links) to this file, an export of the audit trail every host keeps in the store (`wopi audit list`). Never holds tokens, codes or passwords.",
                               valueName: "path"))
    var auditLog: String?
    @Option(help: ArgumentHelp("Days the audit trail in the store keeps events; older ones are deleted at start and every hour.", valueName: "n"))
    var auditDays: Int = 90
    @Option(help: ArgumentHelp("Days a deleted file or folder stays in its owner's trash (`wopi trash list`); older ones are purged with their bodies at start and every hour.",
                               valueName: "n"))
    var trashDays: Int = TrashRules.defaultRetentionDays
    @Option(help: ArgumentHelp("Log format on stderr: text, or json for one JSON object per line.", valueName: "format"))
    var logFormat: String = "text"
    @Option(help: ArgumentHelp("Replaced bodies each file keeps as versions (see `wopi files history`); 0 keeps none.", valueName: "n"))
    var keepVersions: Int = 10
    @Option(help: ArgumentHelp("On SIGTERM or SIGINT, stop accepting and let requests in flight (uploads included) finish for up to this many seconds, then exit 0.",
                               valueName: "seconds"))
    var drainTimeout: Int = 30
    @Option(help: ArgumentHelp("A JSON file of serve options, keyed by option name without dashes (e.g. {\"port\": 8080, \"max-file-size\": \"1G\"}). Precedence: flags, then WOPI_* environment variables (WOPI_PORT, WOPI_MAX_FILE_SIZE, …), then the file. Check one with `wopi config check`.",
                               valueName: "file"))
    var config: String?

    /// The host setting `wopi serve` records its --keep-versions in, for `wopi files restore`.
    static let keepVersionsSetting = "keep-versions"

    func validate() throws {
        if let metricsPort, !(1...65535).contains(metricsPort) { throw ValidationError("--metrics-port must be between 1 and 65535") }
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format '\(logFormat)' must be text or json") }
        guard (0...1000).contains(keepVersions) else { throw ValidationError("--keep-versions must be between 0 and 1000") }
        guard (0...3600).contains(drainTimeout) else { throw ValidationError("--drain-timeout must be between 0 and 3600 seconds") }
        if let auditLog, auditLog.isEmpty { throw ValidationError("--audit-log needs a path") }
        guard (1...36_500).contains(auditDays) else { throw ValidationError("--audit-days must be between 1 and 36500") }
        guard TrashRules.retentionDays.contains(trashDays) else {
            throw ValidationError("--trash-days must be between \(TrashRules.retentionDays.lowerBound) and \(TrashRules.retentionDays.upperBound)")
        }
    }

    /// Sends log records to stderr as text or JSON lines, at `level`.
    func bootstrapLogging(level: Logger.Level) {
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            if json { return JSONLogHandler(label: label, level: level) }
            var handler = StreamLogHandler(label: label, stream: Console.StandardErrorLog())
            handler.logLevel = level
            return handler
        }
    }

    /// The monitor for the host: the audit trail in `store`, metrics when a metrics port is given, the audit log when a path is.
    func monitor(store: any WOPIStore, logger: Logger) throws -> HostMonitor {
        var monitor = HostMonitor()
        if let store = store as? any AuditStore {
            monitor.trail = AuditTrail(store: store, retention: TimeInterval(auditDays) * 86_400, logger: logger)
        }
        if metricsPort != nil { monitor.metrics = HostMetrics() }
        if let auditLog {
            do { monitor.audit = try AuditLog(path: auditLog) } catch { throw CLIError.Failure("\(error.localizedDescription)") }
        }
        return monitor
    }

    /// Runs the host (and the metrics endpoint) until SIGTERM or SIGINT, then drains for up to
    /// `--drain-timeout` seconds: Hummingbird stops accepting and finishes the requests in flight.
    func run(_ app: some ApplicationProtocol & Service, host: String, port: Int, monitor: HostMonitor, trash: TrashRetention? = nil, logger: Logger) async throws {
        // Services stop in reverse order: the trail, first, writes the events of the last requests drained.
        var services: [any Service] = []
        if let trail = monitor.trail { services.append(AuditTrailService(trail: trail)) }
        if let trash { services.append(TrashRetentionService(retention: trash)) }
        services.append(app)
        if let metricsPort, let metrics = monitor.metrics {
            services.append(Application(router: WOPIHostApplication.metricsRouter(metrics),
                                        configuration: .init(address: .hostname(host, port: metricsPort), serverName: "WOPIKit-metrics"),
                                        logger: logger))
            logger.notice("metrics at /metrics", metadata: ["port": "\(metricsPort)"])
        }
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(drainTimeout)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch let error as IOError {
            // A server could not listen (the port taken, the address not this machine's): the host never ran.
            let ports = [port] + (metricsPort.map { [$0] } ?? [])
            throw CLIError.Failure("cannot listen on \(host), port \(ports.map(String.init).joined(separator: " or ")): "
                                   + String(cString: strerror(error.errnoCode)))
        } catch {
            // The drain timed out: what was still running was cancelled, and stopping is still what was asked for.
            logger.warning("stopped after the drain timeout", metadata: ["error": "\(error)"])
        }
        logger.notice("stopped")
    }
}

/// Runs a host's ``AuditTrail`` beside it until the host has drained.
struct AuditTrailService: Service {
    let trail: AuditTrail

    func run() async throws {
        await withGracefulShutdownHandler { await trail.run() } onGracefulShutdown: { trail.finish() }
    }
}

/// Purges a host's trash past its retention (``TrashRetention``) beside it until the host stops.
struct TrashRetentionService: Service {
    let retention: TrashRetention

    func run() async throws {
        await cancelWhenGracefulShutdown { await retention.run() }
    }
}
