import JuiceCore

/// The attacks of issues 22 and 31: one client pipelines many keyed orders that are refused for
/// stock (`ORDER <juice> 1000 key=junk-<i>`), which take no stock, to push the tills' keys out
/// of the server's key memory. Two of them, each from its own loopback address, as another host
/// than the tills: an anonymous one (the server has a manager token, so it must be refused
/// FORBIDDEN, or BUSY), and a paired till flooding its own namespace (it may only push out its
/// own oldest keys, never another till's).
// @unchecked: handed to its own thread at the start and used only there.
final class ChaosFlood: @unchecked Sendable {
    private let run: RunState
    private let juice: String
    private let keysPerBurst: Int
    private let runID: String
    /// "anonymous" or "till": its figures' name, and part of its keys.
    private let name: String
    private let source: String
    /// `TILL <credential>` for the paired till's flood; nil: anonymous.
    private let signIn: String?
    static let source = "127.0.2.1"
    static let tillSource = "127.0.2.2"
    /// Lines written before their answers are read: deep enough to be a flood, shallow enough
    /// that neither side's buffers fill while the other waits.
    static let chunk = 1000

    init(run: RunState, juice: String, keysPerBurst: Int, runID: String, name: String, source: String, signIn: String?) {
        self.run = run
        self.juice = juice
        self.keysPerBurst = keysPerBurst
        self.runID = runID
        self.name = name
        self.source = source
        self.signIn = signIn
    }

    /// One burst at each moment of `schedule` (monotonic times), until the run stops it.
    func flood(at schedule: [Nanos]) {
        for (burst, moment) in schedule.enumerated() {
            while monotonicNow() < moment {
                if run.stopFlood.load(ordering: .relaxed) { return }
                pause(seconds: 0.01)
            }
            send(burst: burst)
        }
    }

    private func send(burst: Int) {
        var next = 0
        while next < keysPerBurst && !run.stopFlood.load(ordering: .relaxed) {
            do {
                let link = try Self.open(run, from: source, signIn: signIn)
                while next < keysPerBurst && !run.stopFlood.load(ordering: .relaxed) {
                    let count = min(Self.chunk, keysPerBurst - next)
                    var lines = ""
                    for i in next..<next + count { lines += "ORDER \(juice) 1000 key=junk-\(name)-\(runID)-\(burst)-\(i)\r\n" }
                    guard link.send(lines) else { throw LinkFailure.closed }
                    var answers: [String: Int] = [:]
                    var read = 0
                    while read < count {
                        let line = try link.readLine(timeout: 30)
                        if line.hasPrefix("EVENT ") { continue }
                        read += 1
                        answers[Self.code(of: line), default: 0] += 1
                    }
                    // Counted once the whole chunk is answered: a kill in the middle of one sends
                    // it again on the next connection (its keys answer as first, as `dup`), so
                    // the figures say every key sent once and answered once, kills or not.
                    run.ledger.update {
                        $0.figures.floodSent[name, default: 0] += count
                        $0.figures.floodAnswers[name, default: [:]].merge(answers, uniquingKeysWith: +)
                    }
                    next += count
                }
            } catch {
                pause(seconds: 0.05)   // the server was killed: the rest of the burst goes to the next one
            }
        }
    }

    /// A line connection from `source`, greeted, events off, and signed in with `signIn` (whose
    /// refusal, say REVOKED, is thrown: the connection is of no use).
    static func open(_ run: RunState, from source: String?, signIn: String?) throws(LinkFailure) -> ChaosLink {
        let link = try ChaosLink(to: run.line, from: source, timeout: 5)
        guard try link.readLine(timeout: 10).hasPrefix("EVENT HELLO"), link.send("EVENTS OFF\r\n") else { throw .closed }
        while try link.readLine(timeout: 10).hasPrefix("EVENT ") {}
        if let signIn {
            guard link.send(signIn + "\r\n") else { throw .closed }
            var reply = try link.readLine(timeout: 10)
            while reply.hasPrefix("EVENT ") { reply = try link.readLine(timeout: 10) }
            guard reply.hasPrefix("OK ") else { throw .malformed("\(signIn.prefix { $0 != " " }) got \(reply)") }
        }
        return link
    }

    /// `ERR OUT_OF_STOCK ...` -> OUT_OF_STOCK; `OK ORDER ...` -> OK.
    static func code(of line: String) -> String {
        switch ServerLine.parse(line) {
        case .ok: return "OK"
        case .err(let code, _): return code
        default: return "other"
        }
    }
}

extension ChaosFlood {
    /// For `--fill-disk`: refused orders *without* a key (they take no key, so they cannot push
    /// a till's key out, but each is journaled), pipelined until the journal needs room it
    /// cannot get and `/healthz` says read-only, or `limit` lines. With the disk full, this is
    /// what brings the server to read-only in seconds instead of after megabytes of sales: the
    /// journal keeps up to a 4 MiB chunk and its 2 MiB headroom preallocated, so up to about
    /// 6 MiB of records (some 120,000 of these) go in before it must grow. Whether it went
    /// read-only, as `/healthz` tells.
    static func growJournal(run: RunState, juice: String, limit: Int) -> Bool {
        do {
            // As the manager: a stranger's orders are refused before the store (FORBIDDEN) and
            // would never reach the journal.
            let link = try open(run, from: source, signIn: "AUTH \(run.managerToken)")
            var sent = 0
            while sent < limit {
                // One juice each: the run lifts the lost-sales allowance to a million juices a
                // minute, so every one of these counts and is journaled (1,000 each would stop
                // counting after a thousand, and an uncounted unkeyed refusal is not journaled).
                guard link.send(String(repeating: "ORDER \(juice) 1\r\n", count: chunk)) else { return false }
                sent += chunk
                for _ in 0..<chunk { _ = try link.readLine(timeout: 30) }
                if try isReadOnly(run) { return true }
            }
        } catch {
            return false
        }
        return false
    }

    /// `GET /healthz`: 503 with "read-only" while the disk is full.
    static func isReadOnly(_ run: RunState) throws(LinkFailure) -> Bool {
        let probe = try ChaosLink(to: run.http, timeout: 5)
        guard probe.send("GET /healthz HTTP/1.1\r\nHost: \(run.http)\r\nConnection: close\r\n\r\n") else { throw .closed }
        let answer = try probe.readHTTPAnswer(timeout: 30)
        return answer.status == 503 && String(decoding: answer.body, as: UTF8.self).contains("read-only")
    }
}
