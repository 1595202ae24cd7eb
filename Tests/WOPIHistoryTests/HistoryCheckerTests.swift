import Testing
import WOPIHistory

/// The checker against histories written by hand: one that keeps every promise, and one per broken promise,
/// each beside the nearest history that must not be flagged.
@Suite struct HistoryCheckerTests {
    static let a = BodyDigest("aaaa"), b = BodyDigest("bbbb"), c = BodyDigest("cccc"), d = BodyDigest("dddd")
    /// The fault behind the unanswered requests of the histories below.
    static let outage = [FaultWindow(kind: "host a killed", start: .zero, end: .seconds(1))]

    /// A request on file "f" from `from` to `to` milliseconds into the run.
    static func event(_ client: Int, _ operation: HistoryOperation, _ from: Int, _ to: Int, _ outcome: HistoryOutcome) -> HistoryEvent {
        HistoryEvent(client: client, file: "f", operation: operation, invoked: .milliseconds(from), completed: .milliseconds(to), outcome: outcome)
    }

    static func read(_ client: Int, _ from: Int, _ to: Int, _ body: BodyDigest, version: String? = nil) -> HistoryEvent {
        event(client, .getFile, from, to, .succeeded(HistoryObservation(body: body, version: version)))
    }

    static func put(_ client: Int, _ body: BodyDigest, _ from: Int, _ to: Int, _ outcome: HistoryOutcome = .succeeded(.nothing),
                    lock: String? = nil) -> HistoryEvent {
        event(client, .putFile(lock: lock, body: body), from, to, outcome)
    }

    static func kinds(_ events: [HistoryEvent], faults: [FaultWindow] = []) -> [HistoryAnomaly.Kind] {
        HistoryChecker().check(History(events: events, initialBodies: ["f": a], faults: faults)).map(\.kind)
    }

    @Test func aHistoryThatKeepsEveryPromiseHasNoAnomaly() {
        let events = [
            Self.event(1, .lock("L1"), 0, 10, .succeeded(.nothing)),
            Self.put(1, Self.b, 20, 30, lock: "L1"),
            Self.read(2, 25, 35, Self.a, version: "1"),  // overlaps the save: the old body is one order
            Self.read(2, 40, 50, Self.b, version: "2"),
            Self.event(2, .lock("L2"), 41, 45, .failed(status: 409)),
            Self.event(1, .unlock("L1"), 60, 70, .succeeded(.nothing)),
            Self.event(2, .lock("L2"), 80, 90, .succeeded(.nothing)),
            Self.put(2, Self.c, 100, 200, .indeterminate, lock: "L2"),
            Self.read(1, 150, 160, Self.c, version: "3"),  // a save in doubt may have taken effect
            Self.read(1, 230, 240, Self.c, version: "3"),
            Self.event(1, .checkFileInfo, 250, 260, .succeeded(HistoryObservation(version: "3"))),
            Self.event(2, .getFile, 2_000, 2_010, .failed(status: 503)),  // within 10 s of the fault's end
        ]
        let anomalies = HistoryChecker().check(History(events: events, initialBodies: ["f": Self.a],
                                                       faults: [FaultWindow(kind: "host b killed", start: .milliseconds(95), end: .milliseconds(210))]))
        #expect(anomalies.isEmpty, "\(anomalies)")
    }

    @Test func aReadOfAReplacedBodyIsALostUpdate() throws {
        let saves = [Self.put(1, Self.b, 0, 10), Self.put(2, Self.c, 20, 30)]
        #expect(Self.kinds(saves + [Self.read(3, 40, 50, Self.b)]) == [.lostUpdate])
        #expect(Self.kinds(saves + [Self.read(3, 40, 50, Self.a)]) == [.lostUpdate], "the first body, replaced twice")
        #expect(Self.kinds(saves + [Self.read(3, 25, 50, Self.b)]).isEmpty, "a read overlapping the second save")
        let anomaly = try #require(HistoryChecker().check(History(events: saves + [Self.read(3, 40, 50, Self.b)], initialBodies: [:])).first)
        #expect(anomaly.description == "lost-update on f: GetFile at 0.040 s–0.050 s returned the save acknowledged at 0.010 s, "
                    + "which the save acknowledged at 0.030 s had replaced")
        #expect(anomaly.events.count == 3)
    }

    @Test func aReadOfARefusedSaveIsFlagged() {
        #expect(Self.kinds([Self.put(1, Self.b, 0, 10, .failed(status: 409)), Self.read(2, 20, 30, Self.b)]) == [.refusedSaveVisible])
    }

    @Test func aBodyNoSaveSentIsUnknown() {
        #expect(Self.kinds([Self.read(1, 0, 10, Self.d)]) == [.unknownBody])
        #expect(Self.kinds([Self.read(1, 0, 10, Self.b), Self.put(2, Self.b, 20, 30)]) == [.unknownBody], "a body before its save was sent")
    }

    @Test func aSaveGivenUpOnMayLandWithinItsBoundButNotAfter() {
        let givenUp = Self.put(1, Self.c, 0, 1_000, .indeterminate)
        let later = Self.put(2, Self.d, 7_000, 7_100)
        #expect(Self.kinds([givenUp, later, Self.read(3, 3_000, 3_100, Self.c)], faults: Self.outage).isEmpty)
        #expect(Self.kinds([givenUp, later, Self.read(3, 8_000, 8_100, Self.c)], faults: Self.outage) == [.lateSave])
    }

    @Test func twoHoldersOfOneLockAreFlaggedUnlessItWasReleasedOrExpired() {
        let first = Self.event(1, .lock("L1"), 0, 10, .succeeded(.nothing))
        let second = Self.event(2, .lock("L2"), 20, 30, .succeeded(.nothing))
        #expect(Self.kinds([first, second]) == [.doubleLockGrant])
        #expect(Self.kinds([first, Self.event(1, .unlock("L1"), 12, 18, .indeterminate), second], faults: Self.outage).isEmpty,
                "an unlock in doubt may have released it")
        #expect(Self.kinds([first, Self.event(1, .unlock("L1"), 12, 18, .failed(status: 409)), second]) == [.doubleLockGrant])
        #expect(Self.kinds([first, Self.event(3, .deleteFile, 12, 18, .succeeded(.nothing)), second]) == [.deletedWhileLocked],
                "the deletion released the lock, but should have been refused")
        #expect(Self.kinds([first, Self.event(3, .deleteFile, 12, 18, .failed(status: 409)), second]) == [.doubleLockGrant])
        #expect(Self.kinds([first, Self.event(1, .unlock("L1"), 11, 12, .succeeded(.nothing)),
                            Self.event(3, .deleteFile, 14, 18, .succeeded(.nothing)), second]).isEmpty, "deleted once unlocked")
        let minute = 60_000
        let afterExpiry = Self.event(2, .lock("L2"), 31 * minute, 31 * minute + 10, .succeeded(.nothing))
        #expect(Self.kinds([first, afterExpiry]).isEmpty, "30 minutes without a refresh")
        let refreshed = Self.event(1, .refreshLock("L1"), 29 * minute, 29 * minute + 10, .succeeded(.nothing))
        #expect(Self.kinds([first, refreshed, afterExpiry]) == [.doubleLockGrant])
        let relocked = Self.event(1, .unlockAndRelock(old: "L1", new: "L3"), 12, 18, .succeeded(.nothing))
        #expect(Self.kinds([first, relocked, second]) == [.doubleLockGrant], "L1 released, but L3 holds it")
    }

    @Test func aVersionNamesOneBodyAndNeverComesBack() {
        #expect(Self.kinds([Self.put(1, Self.b, 0, 5), Self.put(1, Self.c, 6, 9),
                            Self.read(2, 7, 20, Self.b, version: "5"), Self.read(2, 30, 40, Self.c, version: "5")]) == [.versionReused])
        let flipped = [Self.event(1, .checkFileInfo, 0, 10, .succeeded(HistoryObservation(version: "1"))),
                       Self.event(1, .checkFileInfo, 20, 30, .succeeded(HistoryObservation(version: "2"))),
                       Self.event(1, .checkFileInfo, 40, 50, .succeeded(HistoryObservation(version: "1")))]
        #expect(Self.kinds(flipped) == [.versionWentBack])
        let overlapping = [Self.event(1, .checkFileInfo, 0, 10, .succeeded(HistoryObservation(version: "1"))),
                           Self.event(2, .checkFileInfo, 5, 30, .succeeded(HistoryObservation(version: "2"))),
                           Self.event(3, .checkFileInfo, 20, 40, .succeeded(HistoryObservation(version: "1")))]
        #expect(Self.kinds(overlapping).isEmpty)
    }

    @Test func answersAreBoundedAndServiceReturnsAfterAFault() {
        let fault = FaultWindow(kind: "host a killed", start: .seconds(10), end: .seconds(20))
        #expect(Self.kinds([Self.event(1, .checkFileInfo, 0, 6_000, .succeeded(.nothing))]) == [.slowAnswer])
        #expect(Self.kinds([Self.event(1, .checkFileInfo, 0, 4_000, .succeeded(.nothing))]).isEmpty)
        #expect(Self.kinds([Self.event(1, .getFile, 12_000, 12_010, .failed(status: 503))], faults: [fault]).isEmpty)
        #expect(Self.kinds([Self.event(1, .getFile, 29_000, 29_010, .indeterminate)], faults: [fault]).isEmpty, "within 10 s of its end")
        #expect(Self.kinds([Self.event(1, .getFile, 31_000, 31_010, .failed(status: 503))], faults: [fault]) == [.serviceNotRestored])
        #expect(Self.kinds([Self.event(1, .getFile, 31_000, 31_010, .failed(status: 409))], faults: [fault]).isEmpty, "a refusal is service")
        let anomaly = HistoryChecker().check(History(events: [Self.event(1, .getFile, 500, 510, .failed(status: 500))], initialBodies: [:]))
        #expect(anomaly.map(\.description) == ["service-not-restored on f: GetFile sent at 0.500 s failed with HTTP 500, with no fault before it"])
    }
}
