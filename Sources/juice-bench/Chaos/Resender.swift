import JuicePlatform

/// The last check's tool: sends acknowledged keys again, as a till does that lost an answer,
/// and keeps what each got. Every key goes over TCP (pipelined) and a sample over HTTP, so a
/// key first answered on one protocol is also asked on the other.
enum Resender {
    static let chunk = 500

    static func overTCP(_ orders: [Acknowledged], to address: SocketAddress) -> [Resent] {
        var out: [Resent] = []
        var link: ChaosLink?
        for start in stride(from: 0, to: orders.count, by: chunk) {
            let batch = orders[start..<min(start + chunk, orders.count)]
            do {
                if link == nil {
                    let fresh = try ChaosLink(to: address, timeout: 10)
                    guard try fresh.readLine(timeout: 30).hasPrefix("EVENT HELLO"), fresh.send("EVENTS OFF\r\n") else { throw LinkFailure.closed }
                    while try fresh.readLine(timeout: 30).hasPrefix("EVENT ") {}
                    link = fresh
                }
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

    static func overHTTP(_ orders: [Acknowledged], to address: SocketAddress) -> [Resent] {
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
                    guard let open = link, open.send(ChaosLink.post("/orders", body: body, headers: [("Idempotency-Key", order.key)],
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
