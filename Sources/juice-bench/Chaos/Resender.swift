import JuicePlatform

import JuiceCore

/// The last check's tool: sends acknowledged keys again, as a till does that lost an answer,
/// and keeps what each got. A key belongs to its till, so each is re-sent signed in as that till
/// (`credentials`, by till index). Every key given goes over TCP (pipelined) and a sample over
/// HTTP, so a key first answered on one protocol is also asked on the other.
enum Resender {
    static let chunk = 500

    /// What a till may re-send: its newest `Limits.keysPerTill` keys (the contract that lets
    /// the server keep only those per till), orders' and voids' together (they share a till's
    /// keys), by the till's write number `n` (its keys' last part, one number per write).
    static func retriable(_ orders: [AcknowledgedOrder], voids: [AcknowledgedVoid] = []) -> (orders: [AcknowledgedOrder], voids: [AcknowledgedVoid]) {
        var writes: [Int: [Int]] = [:]
        for order in orders { writes[order.till, default: []].append(order.n) }
        for void in voids { writes[void.till, default: []].append(void.n) }
        // Each till's oldest write number still among its newest keysPerTill.
        var floor: [Int: Int] = [:]
        for (till, numbers) in writes where numbers.count > Limits.keysPerTill {
            floor[till] = numbers.sorted()[numbers.count - Limits.keysPerTill]
        }
        return (orders.filter { $0.n >= floor[$0.till] ?? Int.min }, voids.filter { $0.n >= floor[$0.till] ?? Int.min })
    }

    /// The orders' retriable keys alone (as before there were voids).
    static func retriable(_ orders: [AcknowledgedOrder]) -> [AcknowledgedOrder] { retriable(orders, voids: []).orders }

    static func overTCP(_ orders: [AcknowledgedOrder], credentials: [Int: String], run: RunState) -> [Resent] {
        let tills = Dictionary(grouping: orders, by: \.till)
        return tills.keys.sorted().flatMap { till in
            pipelined(tills[till]!, credential: credentials[till] ?? "", run: run) { "ORDER \($0.juice) \($0.count) key=\($0.key)" }
                .map { order, line in
                    Resent(key: order.key, via: .tcp, first: order.answer, reply: line.map(OrderReply.line) ?? .unexpected("no answer"))
                }
        }
    }

    /// The voids' keys again over TCP, each as its till: each must get its first answer, dup.
    static func voidsOverTCP(_ voids: [AcknowledgedVoid], credentials: [Int: String], run: RunState) -> [ResentVoid] {
        let tills = Dictionary(grouping: voids, by: \.till)
        return tills.keys.sorted().flatMap { till in
            pipelined(tills[till]!, credential: credentials[till] ?? "", run: run) { "VOID \($0.sale) \($0.reason) key=\($0.key)" }
                .map { void, line in ResentVoid(key: void.key, first: void.answer, reply: line.map(VoidReply.line) ?? .unexpected("no answer")) }
        }
    }

    /// Sends `line` of each write on one connection signed in as the till, pipelined in chunks;
    /// each write with its reply line (nil when the connection failed before it: reported as
    /// no answer, a failure of the check).
    private static func pipelined<W>(_ writes: [W], credential: String, run: RunState, line: (W) -> String) -> [(W, String?)] {
        var out: [(W, String?)] = []
        var link: ChaosLink?
        for start in stride(from: 0, to: writes.count, by: chunk) {
            let batch = writes[start..<min(start + chunk, writes.count)]
            do {
                if link == nil { link = try ChaosFlood.open(run, from: nil, signIn: "TILL \(credential)") }
                guard let link, link.send(batch.map { line($0) + "\r\n" }.joined()) else { throw LinkFailure.closed }
                for write in batch {
                    var reply = try link.readLine(timeout: 60)
                    while reply.hasPrefix("EVENT ") { reply = try link.readLine(timeout: 60) }
                    out.append((write, reply))
                }
            } catch {
                link = nil
                for write in batch.dropFirst(out.count - start) { out.append((write, nil)) }
            }
        }
        return out
    }

    static func overHTTP(_ orders: [AcknowledgedOrder], credentials: [Int: String], to address: SocketAddress) -> [Resent] {
        var out: [Resent] = []
        var link: ChaosLink?
        for order in orders {
            var reply = OrderReply.unexpected("not sent")
            // A second try on a fresh connection: the server ends an idle keep-alive connection
            // after a few seconds, which is no fault of the key.
            for _ in 0..<2 {
                do {
                    if link == nil { link = try ChaosLink(to: address, timeout: 10) }
                    let body = #"{"juice":"\#(order.juice)","count":\#(order.count)}"#
                    guard let open = link, open.send(ChaosLink.post("/orders", body: body, headers: [("Idempotency-Key", order.key), ("Juice-Till", credentials[order.till] ?? "")],
                                                                    host: "\(address)")) else { throw LinkFailure.closed }
                    let answer = try open.readHTTPAnswer(timeout: 60)
                    if answer.closes { link = nil }
                    reply = OrderReply.http(status: answer.status, retryAfter: answer.retryAfter, body: answer.body)
                    break
                } catch {
                    link = nil
                    reply = .unexpected("no answer: \(error)")
                }
            }
            out.append(Resent(key: order.key, via: .http, first: order.answer, reply: reply))
        }
        return out
    }
}
