import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi audit`: the audit trail every host and admin command of a deployment keeps in the store.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Read the audit trail that every host and admin command keeps in the store.",
        discussion: """
            Every `wopi serve` on the same storage (--data, or one --database for several hosts) and every admin command \
            (users, files, shares, token, locks break, files restore) records its events there: sign-ins, locks, saves, \
            renames, deletes, restores, shares and share links, never a token, code, secret or password. `wopi serve \
            --audit-days N` (default 90) sets how long they are kept; `--audit-log PATH` also appends them to a file.
            """,
        subcommands: [List.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print audit events as JSON lines, oldest first.",
            discussion: """
                Each line is one event with the fields of `wopi serve --audit-log`: event, time (ISO 8601, UTC), user, \
                file, request_id (null for an admin command) and the event's details. Every filter given must hold. \
                TIME is ISO 8601 (2026-11-25T14:00:00Z, 2026-11-25T15:00:00+01:00, or a date, 2026-11-25, meaning its \
                start in UTC) or an age: a whole number and s, m, h or d (30m, 24h, 7d). Events: \
                \(AuditEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")).
                """
        )
        @Option(help: ArgumentHelp("Only events at or after this time: ISO 8601, or an age like 24h or 7d.", valueName: "time"))
        var since: String?
        @Option(help: ArgumentHelp("Only events of this user (sign-in name).", valueName: "user")) var user: String?
        @Option(help: ArgumentHelp("Only events about this file or folder id.", valueName: "id")) var file: String?
        @Option(help: ArgumentHelp("Only events of this kind, e.g. file.saved or lock.broken.", valueName: "event")) var event: String?
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            _ = try filter(now: Date())
        }

        /// The filter the options ask for; a bad value is a `ValidationError` (exit 2) naming it.
        func filter(now: Date) throws -> AuditFilter {
            var filter = AuditFilter(user: user, file: file)
            if let since {
                guard let time = AuditTime.parse(since, now: now) else {
                    throw ValidationError("--since '\(since)' is not a time: give ISO 8601 (2026-11-25T14:00:00Z, 2026-11-25) or an age like 30m, 24h, 7d")
                }
                filter.since = time
            }
            if let file, ResourceID(file) == nil { throw ValidationError("--file '\(file)' is not a file or folder id") }
            if let user, user.isEmpty || user.count > 64 { throw ValidationError("--user must be a sign-in name of 1 to 64 characters") }
            if let event {
                guard let kind = AuditEvent.Kind(rawValue: event) else {
                    throw ValidationError("--event '\(event)' is not an audit event; use one of \(AuditEvent.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                filter.event = kind
            }
            return filter
        }

        func run() async throws {
            let filter = try filter(now: Date())
            try await dataOptions.withStorage { storage in
                guard let trail = storage.store as? any AuditStore else { throw CLIError.Failure("this store keeps no audit trail") }
                try await trail.forEachAuditEvent(matching: filter) { event in
                    print(String(decoding: event.jsonLine(), as: UTF8.self))
                }
            }
        }
    }
}

/// The `--since` of `wopi audit list`: an ISO 8601 time or an age counted back from now.
enum AuditTime {
    static func parse(_ text: String, now: Date) -> Date? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count >= 0, text.first?.isNumber == true {
            return now.addingTimeInterval(-Double(count) * unit)
        }
        let format = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]] {
            format.formatOptions = options
            if let date = format.date(from: text) { return date }
        }
        return nil
    }
}
