import JuiceCore
import JuicePlatform

/// `--backups N`: backups taken while the tills sell through kills (and compactions, with a
/// small `--journal-max-bytes`), each with `juice-server backup` as the nightly job takes them;
/// at the end each is restored (`juice-server restore`) into a directory of its own and started,
/// and must hold every change acknowledged before its request began, exactly once: the restored
/// store's seq reaches the newest of them, and each till's keys among them, sent again as that
/// till, get their first answer marked `dup` (applied once, never twice, never lost).
// @unchecked: `take` runs on its own thread; `taken` and `attempts` are read after it joined.
final class ChaosBackups: @unchecked Sendable {
    /// A backup the run took, and what had been acknowledged when its request began.
    struct Taken: Sendable {
        var file: String
        var orders: [AcknowledgedOrder]
        var voids: [AcknowledgedVoid]
        /// Each till's newest write number acknowledged by the time the backup came back: the
        /// store that encoded it held no newer key of that till but the one in flight.
        var newestAfter: [Int: Int] = [:]
    }

    private let run: RunState
    private let binary: String
    private let directory: String
    private let tokenFile: String
    private(set) var taken: [Taken] = []
    /// Attempts that failed (the server was down, starting, or killed mid-answer) and why; each
    /// was tried again. A failed one must leave no file.
    private(set) var failedAttempts: [String] = []
    private(set) var problems: [String] = []

    init(run: RunState, binary: String, directory: String) {
        self.run = run
        self.binary = binary
        self.directory = directory + "/backups"
        tokenFile = directory + "/manager-token"
        mkdir(self.directory, 0o700)
        _ = Platform.writeAll(Platform.open(tokenFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600), run.managerToken + "\n")
    }

    /// `count` moments spread evenly over the run.
    static func moments(_ count: Int, from start: Nanos, over seconds: Double) -> [Nanos] {
        (0..<count).map { start + nanos(seconds: seconds * Double($0 + 1) / Double(count + 1)) }
    }

    /// Takes one backup at each moment (until `stop`), retrying while the server is down.
    func take(at moments: [Nanos], stop: () -> Bool) {
        for (index, moment) in moments.enumerated() {
            while monotonicNow() < moment { if stop() { return }; pause(seconds: 0.01) }
            let file = "\(directory)/backup-\(index + 1).backup"
            let deadline = monotonicNow() + nanos(seconds: 60)
            while !stop() && monotonicNow() < deadline {
                // What was acknowledged before the request begins: all of it must be in the backup.
                let before = run.ledger.snapshot
                let (status, said) = runCapturing([binary, "backup", file, "--server", "\(run.http)", "--manager-token-file", tokenFile],
                                                  output: file + ".log")
                if status == 0 {
                    let after = run.ledger.snapshot
                    var newest: [Int: Int] = [:]
                    for order in after.acknowledged { newest[order.till] = max(newest[order.till] ?? 0, order.n) }
                    for void in after.voids { newest[void.till] = max(newest[void.till] ?? 0, void.n) }
                    taken.append(Taken(file: file, orders: before.acknowledged, voids: before.voids, newestAfter: newest))
                    break
                }
                failedAttempts.append(said)
                if access(file, F_OK) == 0 { problems.append("a failed backup left \(file): \(said)") }
                pause(seconds: 0.2)
            }
            if taken.count < index + 1 && !stop() {
                problems.append("backup \(index + 1) could not be taken within 60 s: \(failedAttempts.last ?? "")")
            }
        }
    }

    /// Restores each backup, starts a server on it, and asks it. The checks' verdict.
    func check(credentials: [Int: String], serverArguments: [String]) -> Check {
        var wrong = problems
        var keysAsked = 0
        for (index, backup) in taken.enumerated() {
            let data = "\(directory)/restored-\(index + 1)"
            let (restored, said) = runCapturing([binary, "restore", backup.file, "--data", data], output: data + ".log")
            guard restored == 0 else { wrong.append("backup \(index + 1) did not restore: \(said)"); continue }
            let server = ServerProcess(binary: binary, arguments: ["--host", "127.0.0.1", "--data", data, "--log-level", "warn",
                                                                   "--max-clients-per-address", "0"] + serverArguments,
                                       logPath: data + "-server.log", environment: ["JUICE_MANAGER_TOKEN=\(run.managerToken)"])
            do throws(BenchError) {
                try server.start(timeout: 60)
                defer { server.terminate() }
                let asked = RunState(server: server, managerToken: run.managerToken)
                let stock = try ControlClient(asked.line, token: run.managerToken).command("STOCK")
                let newest = (backup.orders.compactMap(\.answer.seq) + backup.voids.compactMap(\.answer.seq)).max() ?? 0
                let restoredSeq = WireReader.seq(in: stock).map(Int.init) ?? -1
                if restoredSeq < newest { wrong.append("backup \(index + 1) restored at seq \(restoredSeq), before seq \(newest) acknowledged before it was asked for") }
                let (orders, voids) = Self.askable(backup)
                keysAsked += orders.count + voids.count
                for resend in Resender.overTCP(orders, credentials: credentials, run: asked) {
                    if case .definite(let answer, true, _) = resend.reply, answer == resend.first { continue }
                    wrong.append("backup \(index + 1): \(resend.key) got \(resend.reply), first answer \(resend.first)")
                }
                for resend in Resender.voidsOverTCP(voids, credentials: credentials, run: asked) {
                    if case .definite(let answer, true) = resend.reply, answer == resend.first { continue }
                    wrong.append("backup \(index + 1): void \(resend.key) got \(resend.reply), first answer \(resend.first)")
                }
            } catch {
                wrong.append("backup \(index + 1) restored but did not serve: \(error.message)")
            }
        }
        let detail = "\(taken.count) taken (\(failedAttempts.count) attempts while the server was down, retried), "
            + "each restored and started, \(keysAsked) acknowledged keys asked again: each dup with its first answer"
        return Check(name: "every backup restores what was acknowledged before it", ok: wrong.isEmpty && !taken.isEmpty,
                     detail: wrong.isEmpty ? (taken.isEmpty ? "no backup could be taken: \(failedAttempts.last ?? "")" : detail) : ChaosCheck.sample(wrong))
    }

    /// The keys the store still held when it encoded the backup: a till's newest `keysPerTill`.
    /// Its tills kept selling while the backup was asked for, so that window is counted from
    /// each till's newest write acknowledged once the backup came back, plus the one it may have
    /// had in flight, not from what was acknowledged before the request (that would ask about
    /// keys the store had already, rightly, forgotten).
    static func askable(_ backup: Taken) -> (orders: [AcknowledgedOrder], voids: [AcknowledgedVoid]) {
        func kept(_ till: Int, _ n: Int) -> Bool {
            guard let newest = backup.newestAfter[till] else { return true }
            return n >= newest + 1 - Limits.keysPerTill + 1
        }
        return (backup.orders.filter { kept($0.till, $0.n) }, backup.voids.filter { kept($0.till, $0.n) })
    }
}
