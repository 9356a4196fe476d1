import JuicePlatform

import JuiceCore

/// The last check's tool: sends acknowledged keys again, as a till does that lost an answer,
/// and keeps what each got. A key belongs to its till, so each is re-sent signed in as that till
/// (`credentials`, by till index). Every key given goes over TCP (pipelined) and a sample over
/// HTTP, so a key first answered on one protocol is also asked on the other.
enum Resender {
    static let chunk = 500

    /// What a till may re-send: its newest `Limits.keysPerTill` keys (the contract that lets
    /// the server keep only those per till). Orders are in the order they were acknowledged,
    /// which for one till (one order at a time) is the order of its keys.
    static func retriable(_ orders: [Acknowledged]) -> [Acknowledged] {
        var left: [Int: Int] = [:]
        let newestFirst = orders.reversed().filter { order in
            left[order.till, default: Limits.keysPerTill] -= 1
            return left[order.till]! >= 0
        }
        return newestFirst.reversed()
    }

    static func overTCP(_ orders: [Acknowledged], credentials: [Int: String], run: RunState) -> [Resent] {
        let tills = Dictionary(grouping: orders, by: \.till)
        return tills.keys.sorted().flatMap { till in overTCP(tills[till]!, credential: credentials[till] ?? "", run: run) }
    }

    private static func overTCP(_ orders: [Acknowledged], credential: String, run: RunState) -> [Resent] {
        var out: [Resent] = []
        var link: ChaosLink?
        for start in stride(from: 0, to: orders.count, by: chunk) {
            let batch = orders[start..<min(start + chunk, orders.count)]
            do {
                if link == nil { link = try ChaosFlood.open(run, from: nil, signIn: "TILL \(credential)") }
                guard let link, link.send(batch.map { "ORDER \($0.juice) \($0.count) key=\($0.key)\r\n" }.joined()) else {
                    throw LinkFailure.closed
                }
                for order in batch {
                    var line = try link.readLine(timeout: 60)
                    while line.hasPrefix("EVENT ") { line = try link.readLine(timeout: 60) }
                    out.append(Resent(key: order.key, via: .tcp, first: order.answer, reply: OrderReply.line(line)))
                }
            } catch {
                link = nil
                for order in batch.dropFirst(out.count - start) {
                    out.append(Resent(key: order.key, via: .tcp, first: order.answer, reply: .unexpected("no answer: \(error)")))
                }
            }
        }
        return out
    }

    static func overHTTP(_ orders: [Acknowledged], credentials: [Int: String], to address: SocketAddress) -> [Resent] {
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
