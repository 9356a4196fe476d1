import JuiceCore
import JuiceDomain
import Synchronization

/// What tills order: juices whose fruits are stocked, and now and then one that is always
/// refused (its fruit is kept at 0), so that a refusal, an acknowledged answer too, is also
/// retried and re-sent.
struct OrderChoice: Sendable {
    var juices: [String]
    var refusedJuice: String?

    func next(_ rng: inout ChaosRNG) -> (juice: String, count: Int) {
        if let refusedJuice, Int.random(in: 0..<20, using: &rng) == 0 { return (refusedJuice, 1) }
        return (juices.randomElement(using: &rng)!, Int.random(in: 1...3, using: &rng))
    }
}

/// One till: one keyed order at a time, each retried with its own key until it gets a definite
/// answer (made, or refused for stock), across lost connections, kills, BUSY and READ_ONLY; and
/// now and then a keyed void of one of its own recent sales, retried the same way.
/// Each till connects from its own loopback address, as each real till is its own device, and
/// signs in with the credential it was paired with (`TILL` on each line connection, `Juice-Till`
/// on each HTTP request).
// @unchecked: handed to its own thread at the start and used only there.
final class ChaosTill: @unchecked Sendable {
    let index: Int
    let via: Protocol
    private let run: RunState
    private let runID: String
    private let choice: OrderChoice
    private let thinkSeconds: Double
    /// The chance, in percent, that a made sale is followed by a void of one of its recent sales.
    private let voidPercent: Int
    private var rng: ChaosRNG
    private var link: ChaosLink?
    /// Its made sales not voided yet, with when they were answered: what it may void.
    private var voidable: [(seq: Int, at: Nanos)] = []
    /// A till voids its own sales within 10 minutes (the server's window); it picks among those
    /// of the last 5, far inside it.
    static let voidableSeconds = 300.0
    static let reasons = ["wrong-juice", "customer-left", "other"]
    let source: String?
    /// Set by the run's pairing, before the till's thread starts.
    var credential = ""

    init(index: Int, via: Protocol, run: RunState, runID: String, choice: OrderChoice, thinkSeconds: Double, voidPercent: Int,
         seed: UInt64) {
        self.index = index
        self.via = via
        self.run = run
        self.runID = runID
        self.choice = choice
        self.thinkSeconds = thinkSeconds
        self.voidPercent = voidPercent
        rng = ChaosRNG.stream(seed, UInt64(index + 1))
        source = index < 250 ? "127.0.1.\(index + 1)" : nil
    }

    func sell() {
        var n = 0
        while !run.stopOrders.load(ordering: .relaxed) {
            pause(seconds: Double.random(in: 0...thinkSeconds, using: &rng))
            n += 1
            let (juice, count) = choice.next(&rng)
            run.ledger.update {
                $0.figures.ordersStarted += 1
                if via == .tcp { $0.figures.tcpOrders += 1 } else { $0.figures.httpOrders += 1 }
            }
            place(key: "chaos-\(runID)-\(index)-\(n)", juice: juice, count: count, n: n)
            // Now and then a void of one of its own recent sales (the one just made, or older).
            let now = monotonicNow()
            voidable.removeAll { now - $0.at > nanos(seconds: Self.voidableSeconds) }
            // The server keeps only the day's newest `DaySales.maxKept` sales voidable (PROTOCOL.md,
            // "VOID"): an older one is NO_SUCH_SALE by design, as a 120 s run of 23,000 sales
            // found. So only sales within half that many changes of its newest are voided: fewer
            // sales than that are made meanwhile, even while this void waits out a kill.
            if let newest = voidable.last?.seq { voidable.removeAll { newest - $0.seq >= DaySales.maxKept / 2 } }
            if !voidable.isEmpty, Int.random(in: 0..<100, using: &rng) < voidPercent, !run.stopOrders.load(ordering: .relaxed) {
                let sale = voidable.remove(at: Int.random(in: voidable.indices, using: &rng)).seq
                n += 1
                run.ledger.update { $0.figures.voidsStarted += 1 }
                void(key: "chaos-\(runID)-\(index)-\(n)", sale: sale, reason: Self.reasons.randomElement(using: &rng)!, n: n)
            }
        }
        link = nil
    }

    /// Sends the order until it is answered for good, or the run gives up on it.
    private func place(key: String, juice: String, count: Int, n: Int) {
        persist(key: key) { () throws(LinkFailure) -> Step in
            switch try attempt(key: key, juice: juice, count: count) {
            case .definite(let answer, let dup, _):
                let order = AcknowledgedOrder(key: key, write: OrderWrite(juice: juice, count: count), via: via, answer: answer, dup: dup, till: index, n: n)
                run.ledger.update {
                    $0.acknowledged.append(order)
                    if dup { $0.figures.dupAnswers += 1 }
                }
                if let seq = answer.seq { voidable.append((seq, monotonicNow())) }
                return .done
            case .retryLater(let why, let after): return .retry(why, after: after)
            case .unexpected(let why): return .fail("\(key) got \(why)")
            }
        }
    }

    /// Sends the void until it is answered for good, or the run gives up on it.
    private func void(key: String, sale: Int, reason: String, n: Int) {
        persist(key: key) { () throws(LinkFailure) -> Step in
            switch try attemptVoid(key: key, sale: sale, reason: reason) {
            case .definite(let answer, let dup):
                let void = AcknowledgedVoid(key: key, write: VoidWrite(sale: sale, reason: reason), via: via, answer: answer, dup: dup, till: index, n: n)
                run.ledger.update {
                    $0.voids.append(void)
                    if dup { $0.figures.voidDupAnswers += 1 }
                }
                return .done
            case .retryLater(let why, let after): return .retry(why, after: after)
            case .unexpected(let why): return .fail("\(key) (VOID \(sale)) got \(why)")
            }
        }
    }

    /// What one exchange of a keyed write came to.
    private enum Step {
        case done
        case retry(String, after: Double)
        case fail(String)
    }

    /// Runs `exchange` until it is answered for good (it records the answer), the answer is a
    /// fault, or the run gives up on the key.
    private func persist(key: String, _ exchange: () throws(LinkFailure) -> Step) {
        var first = true
        var backoff = 0.005
        while true {
            if run.givingUp {
                run.ledger.update { $0.unanswered.append(key) }
                return
            }
            run.ledger.update {
                $0.figures.attempts += 1
                if !first { $0.figures.retries += 1 }
            }
            first = false
            let step: Step
            do {
                step = try exchange()
            } catch .malformed(let why) where why.hasPrefix("TILL got ERR") {
                // The server no longer knows or takes this till (a lost store): no retry helps.
                link = nil
                run.ledger.update { $0.unexpected.append("\(key): \(why)") }
                return
            } catch {
                link = nil
                run.ledger.update { $0.figures.connectionLosses += 1 }
                pause(seconds: backoff)
                backoff = min(backoff * 2, 0.2)
                continue
            }
            backoff = 0.005
            switch step {
            case .done: return
            case .retry(let why, let after):
                run.ledger.update { $0.figures.notNow[Self.code(of: why), default: 0] += 1 }
                pause(seconds: min(after, 2))
            case .fail(let why):
                run.ledger.update { $0.unexpected.append(why) }
                return
            }
        }
    }

    private func attemptVoid(key: String, sale: Int, reason: String) throws(LinkFailure) -> VoidReply {
        try attempt(key: key, line: "VOID \(sale) \(reason)", path: "/voids", body: #"{"sale":\#(sale),"reason":"\#(reason)"}"#)
    }

    private func attempt(key: String, juice: String, count: Int) throws(LinkFailure) -> OrderReply {
        try attempt(key: key, line: "ORDER \(juice) \(count)", path: "/orders", body: #"{"juice":"\#(juice)","count":\#(count)}"#)
    }

    /// One attempt at a keyed write: `line` with the key over TCP, or `body` posted to `path`
    /// with the key and the till's credential over HTTP; its reply, read as `Reply`.
    private func attempt<Reply: KeyedReply>(key: String, line: String, path: String, body: String) throws(LinkFailure) -> Reply {
        let link = try connected()
        switch via {
        case .tcp:
            guard link.send("\(line) key=\(key)\r\n") else { throw .closed }
            run.orderWritten()
            while true {
                let line = try link.readLine(timeout: 10)
                if !line.hasPrefix("EVENT ") { return Reply.line(line) }
            }
        case .http:
            guard link.send(ChaosLink.post(path, body: body, headers: [("Idempotency-Key", key), ("Juice-Till", credential)],
                                           host: "\(run.http)")) else { throw .closed }
            run.orderWritten()
            let answer = try link.readHTTPAnswer(timeout: 10)
            if answer.closes { self.link = nil }
            return Reply.http(status: answer.status, retryAfter: answer.retryAfter, body: answer.body)
        }
    }

    /// The open connection, or a new one (a line connection reads its greeting, turns its
    /// events off, a till reads only answers, and signs in as the till).
    private func connected() throws(LinkFailure) -> ChaosLink {
        if let link { return link }
        let fresh = via == .tcp ? try ChaosFlood.open(run, from: source, signIn: "TILL \(credential)")
                                : try ChaosLink(to: run.http, from: source, timeout: 5)
        link = fresh
        return fresh
    }

    /// `ERR BUSY ...` -> BUSY; `503 {"ok":false,"error":"READ_ONLY"...}` -> 503 READ_ONLY.
    static func code(of why: String) -> String {
        if why.hasPrefix("ERR ") { return String(why.dropFirst(4).prefix { $0 != " " }) }
        let status = why.prefix(3)
        if let range = why.range(of: #""error":""#) {
            return "\(status) " + String(why[range.upperBound...].prefix { $0 != "\"" })
        }
        return String(status)
    }
}
