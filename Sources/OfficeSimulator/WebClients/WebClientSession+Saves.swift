import Foundation
import WOPIHTTPClient

/// How each browser editor saves: Office for the web once with its lock, Collabora Online with
/// autosaves guarded by `X-COOL-WOPI-Timestamp` (`wsd/reference.md`).
extension WebClientSession {
    /// The longest the other writer keeps saving until the host's `LastModifiedTime` moves past
    /// the autosave's second (hosts keep it to the second).
    static let otherWriterDeadline: Duration = .seconds(5)

    // MARK: Office for the web

    /// Lock, GetFile, RefreshLock, PutFile with the lock and `X-WOPI-Editors`, CheckFileInfo, Unlock.
    mutating func officeWeb(_ wopi: WOPIRequests, _ info: FileInfo) async throws(SimulationFailure) -> SimulationResult {
        let lock = "WOPIKit-office-web-" + UUID().uuidString
        try await takeLock(wopi, lock)
        let content = try await getFile(wopi, info.summary)
        try await refreshLock(wopi, lock)
        let saved = options.replacementContent ?? ContentEdit.edited(content)
        let editors = [SimulatorHeader("X-WOPI-Editors", info.summary.userID)]
        let response = try await send(wopi.putFile(saved, lock: lock, headers: editors), .putFile)
        guard response.status == 200 else {
            let reason = response.status == 409 ? "the host refused the write although the editor holds the lock" : "PutFile must answer 200"
            throw SimulationFailure(step: .putFile, reason: reason, response: response)
        }
        report(.putFile, "saved \(saved.count) bytes with the lock")
        let version = try await checkAfterSave(wopi, before: info.summary, saved: saved)
        try await unlock(wopi, lock)
        return SimulationResult(steps: steps, versionBefore: info.summary.version, versionAfter: version, savedContent: saved, passback: nil, client: client)
    }

    // MARK: Collabora Online

    /// Lock when `SupportsLocks`, GetFile, an autosave with the timestamp, RefreshLock, another
    /// writer's save, the stale autosave refused with 1010 and nothing overwritten, the exit save,
    /// CheckFileInfo, Unlock. When CheckFileInfo names a `TemplateSource`, the template is read
    /// instead of GetFile and is the first autosave.
    mutating func collabora(_ wopi: WOPIRequests, _ info: FileInfo) async throws(SimulationFailure) -> SimulationResult {
        // An opaque value: Collabora Online sends back exactly what it was given, in whatever format.
        let seen = info.lastModifiedTime.flatMap { $0.isEmpty ? nil : $0 }
        var lock: String?
        if info.summary.supportsLocks {
            let taken = "WOPIKit-collabora-" + UUID().uuidString
            try await takeLock(wopi, taken)
            lock = taken
        } else {
            report(.lock, .skipped, "CheckFileInfo does not set SupportsLocks; Collabora Online saves without a lock")
        }
        // A new document made from a template: the editor builds it from the template and saves that first.
        let autosaved: Data
        if let source = info.templateSource {
            autosaved = try await fetchTemplate(source)
        } else {
            autosaved = ContentEdit.edited(try await getFile(wopi, info.summary))
        }
        let afterAutosave = try await collaboraSave(wopi, autosaved, lock: lock, timestamp: seen, exit: false, step: .autosave)
        report(.autosave, "saved \(autosaved.count) bytes with " + (seen.map { "X-COOL-WOPI-Timestamp \($0)" } ?? "no X-COOL-WOPI-Timestamp (CheckFileInfo gives no LastModifiedTime)")
            + "; the answer's LastModifiedTime is \(afterAutosave ?? "not given")")
        if let lock {
            try await refreshLock(wopi, lock)
        } else {
            report(.refreshLock, .skipped, "no lock held")
        }

        guard seen != nil, let afterAutosave else {
            // Without a timestamp Collabora Online cannot tell another writer's save, so it plays none.
            let reason = "CheckFileInfo gives no LastModifiedTime, so Collabora Online cannot detect a change made elsewhere"
            for step in [SimulationStep.Name.otherWriter, .staleAutosave, .contentUntouched] { report(step, .skipped, reason) }
            let final = options.replacementContent ?? ContentEdit.edited(autosaved)
            _ = try await collaboraSave(wopi, final, lock: lock, timestamp: nil, exit: true, step: .exitSave)
            report(.exitSave, "saved \(final.count) bytes with X-COOL-WOPI-IsExitSave")
            let version = try await checkAfterSave(wopi, before: info.summary, saved: final)
            if let lock { try await unlock(wopi, lock) } else { report(.unlock, .skipped, "no lock held") }
            return SimulationResult(steps: steps, versionBefore: info.summary.version, versionAfter: version, savedContent: final, passback: nil, client: client)
        }

        let others = ContentEdit.edited(autosaved)
        let changed = try await saveAsOtherWriter(wopi, others, lock: lock, after: afterAutosave)

        let stale = ContentEdit.edited(others)
        let refused = try await send(wopi.putFile(stale, lock: lock, headers: Self.collaboraHeaders(timestamp: afterAutosave, exit: false)), .staleAutosave)
        guard refused.status == 409 else {
            let reason = (200..<300).contains(refused.status)
                ? "the host saved an autosave whose X-COOL-WOPI-Timestamp \(afterAutosave) is older than the file (LastModifiedTime \(changed)), overwriting another writer's save; it must answer 409 with {\"COOLStatusCode\":1010}"
                : "an autosave with a stale X-COOL-WOPI-Timestamp must answer 409 with {\"COOLStatusCode\":1010}"
            throw SimulationFailure(step: .staleAutosave, reason: reason, response: refused)
        }
        guard JSONValue.object(from: refused.body)?["COOLStatusCode"]?.integerValue == 1010 else {
            throw SimulationFailure(step: .staleAutosave,
                                    reason: "the 409 must carry {\"COOLStatusCode\":1010}, so Collabora Online asks the user instead of reporting a failed save",
                                    response: refused)
        }
        report(.staleAutosave, "409 with COOLStatusCode 1010 for X-COOL-WOPI-Timestamp \(afterAutosave): the document changed in storage")

        let now = try await send(wopi.getFile, .contentUntouched)
        guard now.status == 200, now.body == others else {
            throw SimulationFailure(step: .contentUntouched,
                                    reason: "after the refused autosave the file must still hold the other writer's \(others.count) bytes; GetFile answered \(now.status) with \(now.body.count) bytes",
                                    response: now)
        }
        report(.contentUntouched, "the file still holds the other writer's \(others.count) bytes")

        let final = options.replacementContent ?? ContentEdit.edited(stale)
        let closed = try await collaboraSave(wopi, final, lock: lock, timestamp: nil, exit: true, step: .exitSave)
        report(.exitSave, "saved \(final.count) bytes with X-COOL-WOPI-IsExitSave and no timestamp, as after the user's \"overwrite\"; LastModifiedTime \(closed ?? "not given")")
        let version = try await checkAfterSave(wopi, before: info.summary, saved: final)
        if let lock {
            try await unlock(wopi, lock)
        } else {
            report(.unlock, .skipped, "no lock held")
        }
        return SimulationResult(steps: steps, versionBefore: info.summary.version, versionAfter: version, savedContent: final, passback: nil, client: client)
    }

    /// Collabora Online's PutFile headers (`wsd/reference.md`, "PutFile headers").
    static func collaboraHeaders(timestamp: String?, exit: Bool) -> [SimulatorHeader] {
        var headers = [SimulatorHeader("X-COOL-WOPI-IsModifiedByUser", "true"), SimulatorHeader("X-COOL-WOPI-IsAutosave", exit ? "false" : "true"),
                       SimulatorHeader("X-COOL-WOPI-IsExitSave", exit ? "true" : "false")]
        if let timestamp { headers.append(SimulatorHeader("X-COOL-WOPI-Timestamp", timestamp)) }
        return headers
    }

    /// A Collabora save that must succeed and, when the file has a `LastModifiedTime`, answer
    /// `{"LastModifiedTime": …}`; returns that time (an opaque string, as Collabora Online keeps it).
    mutating func collaboraSave(_ wopi: WOPIRequests, _ content: Data, lock: String?, timestamp: String?, exit: Bool,
                                step: SimulationStep.Name) async throws(SimulationFailure) -> String? {
        let response = try await send(wopi.putFile(content, lock: lock, headers: Self.collaboraHeaders(timestamp: timestamp, exit: exit)), step)
        guard response.status == 200 else {
            let changed = JSONValue.object(from: response.body)?["COOLStatusCode"]?.integerValue == 1010
            let current = response.header("X-WOPI-Lock") ?? ""
            let reason: String
            if changed {
                reason = "the host refused the save as changed in storage (COOLStatusCode 1010) although X-COOL-WOPI-Timestamp is the LastModifiedTime it gave"
            } else if response.status == 409, !current.isEmpty, current != lock {
                reason = "the host refused the save with 409 naming the lock '\(current)', which \(lock.map { "is not the editor's '\($0)'" } ?? "nobody asked for"): "
                    + "it keeps a lock of its own on the file, so no save can succeed"
            } else {
                reason = "PutFile must answer 200"
            }
            throw SimulationFailure(step: step, reason: reason, response: response)
        }
        let time = JSONValue.object(from: response.body)?["LastModifiedTime"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        guard time != nil || timestamp == nil else {
            throw SimulationFailure(step: step,
                                    reason: "the answer has no LastModifiedTime; Collabora Online sends it as the next save's X-COOL-WOPI-Timestamp, so without it the next autosave looks stale (wsd/reference.md)",
                                    response: response)
        }
        return time
    }

    /// Another writer saves without the timestamp (under the lock the simulator holds, as a second
    /// editor session of the same lock would), until the host's LastModifiedTime is past `seen`'s second.
    /// Returns the new LastModifiedTime.
    mutating func saveAsOtherWriter(_ wopi: WOPIRequests, _ content: Data, lock: String?, after seen: String) async throws(SimulationFailure) -> String {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.otherWriterDeadline)
        // Let the clock leave the autosave's second first, so one save usually does (another is
        // sent only when the host's clock lags behind).
        let untilNextSecond = WebClientTime.parse(seen).map { $0.timeIntervalSince1970.rounded(.down) + 1 - Date().timeIntervalSince1970 } ?? 0
        if untilNextSecond > 0, untilNextSecond <= 2 {
            try? await Task.sleep(for: .milliseconds(Int(untilNextSecond * 1000) + 20))
        }
        while true {
            let response = try await send(wopi.putFile(content, lock: lock, headers: []), .otherWriter)
            guard response.status == 200 else {
                throw SimulationFailure(step: .otherWriter, reason: "another writer's PutFile without X-COOL-WOPI-Timestamp\(lock == nil ? "" : " under the lock") must answer 200",
                                        response: response)
            }
            let info = try await send(wopi.checkFileInfo, .otherWriter)
            guard info.status == 200, let text = JSONValue.object(from: info.body)?["LastModifiedTime"]?.stringValue, !text.isEmpty else {
                throw SimulationFailure(step: .otherWriter, reason: "CheckFileInfo after another writer's save must answer 200 with its LastModifiedTime", response: info)
            }
            if WebClientTime.changed(text, from: seen) {
                report(.otherWriter, "another writer saved \(content.count) bytes without the timestamp; LastModifiedTime \(seen) → \(text)")
                return text
            }
            guard clock.now < deadline else {
                throw SimulationFailure(step: .otherWriter, reason: "LastModifiedTime stayed \(text) after another writer's saves; it must change when the file does", response: info)
            }
            // The host keeps the time to the second: save again once the clock has moved on.
            try? await Task.sleep(for: .milliseconds(250))
        }
    }
}
