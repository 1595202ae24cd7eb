extension HistoryChecker {
    /// The versions rule: a version names one body, and once another version has been shown after it, it
    /// never comes back (every save makes a new version).
    func versions(_ events: [HistoryEvent], file: String) -> [HistoryAnomaly] {
        let shown = events.compactMap { event -> (version: String, body: BodyDigest?, event: HistoryEvent)? in
            guard case .succeeded(let seen) = event.outcome, let version = seen.version else { return nil }
            switch event.operation {
            case .getFile, .checkFileInfo: return (version, seen.body, event)
            default: return nil
            }
        }
        var anomalies: [HistoryAnomaly] = []
        var bodies: [String: (body: BodyDigest, event: HistoryEvent)] = [:]
        var reported: Set<String> = []
        for (version, body, event) in shown {
            guard let body else { continue }
            if let first = bodies[version], first.body != body, reported.insert(version).inserted {
                anomalies.append(HistoryAnomaly(
                    kind: .versionReused, file: file,
                    explanation: "version '\(version)' was shown with body \(first.body) at \(Self.text(first.event.completed)) "
                        + "and with body \(body) at \(Self.text(event.completed))",
                    events: [first.event, event]))
            } else if bodies[version] == nil {
                bodies[version] = (body, event)
            }
        }
        // v, then w, then v again, each shown after the one before had been answered.
        let firstShown = Dictionary(shown.map { ($0.version, $0.event.completed) }, uniquingKeysWith: min)
        let byCompletion = shown.sorted { $0.event.completed < $1.event.completed }
        var wentBack: Set<String> = []
        for again in shown where !wentBack.contains(again.version) {
            guard let since = firstShown[again.version] else { continue }
            let between = byCompletion.first {
                $0.version != again.version && $0.event.invoked > since && $0.event.completed < again.event.invoked
            }
            guard let between else { continue }
            wentBack.insert(again.version)
            anomalies.append(HistoryAnomaly(
                kind: .versionWentBack, file: file,
                explanation: "version '\(again.version)', first shown by \(Self.text(since)), was shown again at "
                    + "\(Self.text(again.event.completed)) after version '\(between.version)' had been shown at \(Self.text(between.event.completed))",
                events: [between.event, again.event]))
        }
        return anomalies
    }
}
