import JuicePlatform
import Synchronization

/// The chaos itself: SIGKILLs the server at the planned moments and starts it again on the same
/// data directory and ports; with `--fill-disk`, fills the disk now and then and kills the
/// server while it is full, so that it must start on a full disk. Between events it watches
/// for the server ending by itself (a crash), which is reported, and restarts it.
// @unchecked: handed to its own thread at the start and used only there.
final class ChaosConductor: @unchecked Sendable {
    enum Event: Equatable {
        /// `atWrite`: armed for the next till's order write, so the kill falls between an
        /// order's write and its answer.
        case kill(atWrite: Bool)
        case fillDisk
    }

    private let run: RunState
    private let disk: DiskFiller?
    /// A juice always refused (its fruit is at 0): what `growJournal` orders.
    private let refusedJuice: String?
    private var rng: ChaosRNG
    /// Why the run cannot go on (the server would not start again), if it came to that.
    private(set) var fatal: BenchError?
    /// Orders answered when the server last started.
    private var answeredAtStart = 0
    /// Set once every planned event happened (or the run cannot go on): the run goes on past
    /// its duration until then, so a loaded machine still gets every kill it was asked for.
    let finished = Atomic<Bool>(false)
    /// How long past the run's end the planned events may still happen.
    static let grace: Double = 120

    init(run: RunState, disk: DiskFiller?, refusedJuice: String?, seed: UInt64) {
        self.run = run
        self.disk = disk
        self.refusedJuice = refusedJuice
        rng = ChaosRNG.stream(seed, 0xC0)
    }

    /// `kills` kills and `fills` disk fills at random moments between `start` and `end`.
    static func plan(kills: Int, fills: Int, over seconds: Double, rng: inout ChaosRNG) -> [(at: Double, event: Event)] {
        let moment = { (rng: inout ChaosRNG) in Double.random(in: 0.05...0.95, using: &rng) * seconds }
        var events: [(at: Double, event: Event)] = []
        for _ in 0..<kills { events.append((moment(&rng), .kill(atWrite: Bool.random(using: &rng)))) }
        for _ in 0..<fills { events.append((moment(&rng), .fillDisk)) }
        return events.sorted { $0.at < $1.at }
    }

    func conduct(_ events: [(at: Double, event: Event)], from start: Nanos, until end: Nanos) {
        defer { finished.store(true, ordering: .releasing) }
        for (at, event) in events {
            // A restart on a loaded machine can push the plan past the end: the events still
            // happen, late, within the grace.
            guard watch(until: start + nanos(seconds: at)), monotonicNow() < end + nanos(seconds: Self.grace) else { return }
            switch event {
            case .kill(let atWrite):
                kill(atWrite: atWrite)
            case .fillDisk:
                guard let disk else { continue }
                disk.fill()
                let readOnly = refusedJuice.map { ChaosFlood.growJournal(run: run, juice: $0, limit: 200_000) } ?? false
                run.ledger.update {
                    $0.figures.diskFills += 1
                    if readOnly { $0.figures.diskFillsReadOnly += 1 }
                }
                guard watch(until: monotonicNow() + nanos(seconds: Double.random(in: 0.3...1.5, using: &rng))) else { return }
                // And start again on the full disk: it must come up read-only. No answered order
                // is waited for first: on a full disk every change is refused.
                kill(atWrite: false, afterAnAnswer: false)
                _ = watch(until: monotonicNow() + nanos(seconds: Double.random(in: 0.3...1.5, using: &rng)))
                disk.free()
            }
            if fatal != nil { return }
            // Let it serve a moment before the next event, however close the plan put them.
            guard watch(until: monotonicNow() + nanos(seconds: Double.random(in: 0.05...0.3, using: &rng))) else { return }
        }
        _ = watch(until: end)
    }

    private func kill(atWrite: Bool, afterAnAnswer: Bool = true) {
        // Never a kill before the server answered anything since it started: a kill should
        // put an answered change at risk (and an --in-memory run then surely loses one).
        while afterAnAnswer && run.ledger.update({ $0.acknowledged.count }) <= answeredAtStart {
            if run.stopOrders.load(ordering: .relaxed) || Interrupt.requested { return }
            pause(seconds: 0.005)
        }
        if atWrite {
            run.killAtNextWrite.store(true, ordering: .relaxed)
            let deadline = monotonicNow() + nanos(seconds: 2)
            while !run.server.killRequested && monotonicNow() < deadline { pause(seconds: 0.001) }
            run.killAtNextWrite.store(false, ordering: .relaxed)
        }
        run.server.killNow()
        run.server.reap()
        run.ledger.update { $0.figures.kills += 1 }
        restart()
    }

    private func restart() {
        answeredAtStart = run.ledger.update { $0.acknowledged.count }
        do {
            try run.server.start(timeout: 60)
        } catch {
            fatal = error
        }
    }

    /// Waits until `moment`, restarting the server if it ended by itself; false once the run
    /// cannot go on.
    private func watch(until moment: Nanos) -> Bool {
        while monotonicNow() < moment {
            if Interrupt.requested { return false }
            if let status = run.server.reapIfExited() {
                let why = (status & 0x7f) == 0 ? "exit status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
                let tail = readFile(run.server.logPath).split(separator: "\n").suffix(3).joined(separator: " | ")
                run.ledger.update { $0.unplannedExits.append("the server ended by itself (\(why)): \(tail)") }
                restart()
            }
            if fatal != nil || Interrupt.requested { return false }
            pause(seconds: 0.01)
        }
        return true
    }
}
