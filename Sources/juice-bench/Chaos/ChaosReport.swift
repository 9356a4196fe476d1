import JuicePlatform

/// A line on stderr every few seconds while the run goes, so a long run shows it is alive.
final class ChaosProgress {
    private let run: RunState
    private let start: Nanos
    private let duration: Double
    private var lastPrinted: Nanos = 0

    init(run: RunState, start: Nanos, duration: Double) {
        self.run = run
        self.start = start
        self.duration = duration
    }

    func tick() {
        let now = monotonicNow()
        guard now - lastPrinted >= nanos(seconds: 5) else { return }
        lastPrinted = now
        let state = run.ledger.snapshot
        writeToStandardError("chaos \(Int(seconds(now - start)))/\(Int(duration)) s: \(state.figures.kills) kills, "
                             + "\(state.acknowledged.count) orders answered, display at seq \(run.displaySeq.load(ordering: .relaxed))\n")
    }

    func finish() {
        writeToStandardError("chaos: the tills have their answers; checking\n")
    }
}

/// The verdict and the figures, as printed.
enum ChaosReport {
    struct Run {
        var seed: UInt64
        var options: ChaosOptions
        var binary: String
        /// Where the data and the server's log were kept (nil: removed).
        var directory: String?
        var figures: Figures
        var observations: Observations
        var checks: [Check]
        var diskNote: String
        /// The server's peak resident set, the highest of any start (KiB; 0: not read).
        var peakRSSKiB = 0
        var floodNote: String?

        /// The verdict is the checks': nothing else can pass or fail a run.
        var passed: Bool { ChaosCheck.passed(checks) }
    }

    static func render(_ r: Run) -> String {
        let f = r.figures, o = r.observations
        let made = o.acknowledged.filter { $0.answer.seq != nil }.count
        let tcpTills = (r.options.tills + 1) / 2
        var rows: [(String, String)] = [
            ("kills", "\(f.kills) SIGKILL + restart (\(f.killsAtWrite) right after an order was written)"),
            ("orders", "\(f.ordersStarted) (TCP \(f.tcpOrders), HTTP \(f.httpOrders))"),
            ("acknowledged", "\(o.acknowledged.count): \(made) made, \(o.acknowledged.count - made) refused for stock"),
            ("attempts", "\(f.attempts): \(f.retries) retries after \(f.connectionLosses) failed connections or exchanges and \(f.notNow.values.reduce(0, +)) not-now answers"),
            ("dup answers", "\(f.dupAnswers) (the first answer a till got was a repeat: applied, answer lost)"),
            ("voids", "\(f.voidsStarted) (\(r.options.voidPercent)% of sales): \(o.voids.filter { $0.answer.seq != nil }.count) voided, "
                + "\(f.voidDupAnswers) first answered dup"),
            ("money", o.after.takings.map { "takings \(o.before.takings ?? 0) -> \($0), voided \(o.before.voidedAmount ?? 0) -> \(o.after.voidedAmount ?? 0) (minor units)" }
                ?? "no prices"),
            ("not now", f.notNow.isEmpty ? "none" : f.notNow.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
            ("display", "\(o.display.count) events over \(f.displayConnections) connections, "
                + "\(o.display.filter(\.fullState).count) full states, \(f.displayRepeatsIgnored) repeats before OK SINCE ignored"),
            ("flood", r.floodNote ?? (r.options.flood.isOn ? ["anonymous", "till"].map { name in
                "\(name) \(f.floodSent[name] ?? 0) keyed orders sent: " + (f.floodAnswers[name] ?? [:]).sorted { $0.key < $1.key }
                    .map { "\($0.key) \($0.value)" }.joined(separator: ", ") }.joined(separator: "; ") : "off")),
            ("disk fills", r.diskNote.isEmpty ? "\(f.diskFills), \(f.diskFillsReadOnly) of them brought the store to READ_ONLY, then a kill and a start on the full disk" : r.diskNote),
            ("re-sent", "\(o.resent.filter { $0.via == .tcp }.count) keys over TCP, \(o.resent.filter { $0.via == .http }.count) over HTTP, "
                + "\(o.resentVoids.count) void keys over TCP"),
            ("server RSS", r.peakRSSKiB > 0 ? "max \(formatFixed(Double(r.peakRSSKiB) / 1024, 1)) MiB (VmHWM, highest of \(f.kills + 1) starts)"
                : "not read (no /proc)"),
            ("store", "seq \(o.before.seq) -> \(o.after.seq), orders_served \(o.after.ordersServed), orders_refused \(o.after.ordersRefused), keys remembered \(o.after.keys)"),
        ]
        if let directory = r.directory { rows.append(("kept", "\(directory) (server.log, data)")) }
        var text = "juice-bench chaos: \(r.passed ? "PASS" : "FAIL")\n"
        text += "  seed \(r.seed), \(formatFixed(r.options.duration, 1)) s, \(r.options.tills) tills (\(tcpTills) TCP, "
            + "\(r.options.tills - tcpTills) HTTP), server \(r.binary)\(r.options.inMemory ? " --in-memory" : "")\n"
        for (name, value) in rows { text += "  " + name.padding(14) + value + "\n" }
        text += "\n"
        for check in r.checks { text += "  \(check.ok ? "ok  " : "FAIL") \(check.name): \(check.detail)\n" }
        return text
    }
}
