import JuicePlatform

/// Before selling, each till is paired as a shop pairs a tablet (README, "Running it in a shop"):
/// the manager makes a code (`TILLS NEW <name>` on the run's control connection), and the till
/// enters it from its own address over its own protocol (`PAIR <code>` on a line connection,
/// `POST /tills/pair` over HTTP). The credential it gets signs in all its later connections.
/// Done while nothing is killed: a failure here is the run's, not chaos.
enum ChaosPairing {
    /// A credential for a till named `name`, paired over `via` from `source`.
    static func pair(_ name: String, via: Protocol, from source: String?, control: ControlClient,
                     run: RunState) throws(BenchError) -> String {
        let made = try control.command("TILLS NEW \(name)")
        guard let code = field("code=", in: made) else { throw BenchError.fatal("TILLS NEW was refused: \(made)") }
        do {
            switch via {
            case .tcp:
                let link = try ChaosFlood.open(run, from: source, signIn: nil)
                guard link.send("PAIR \(code)\r\n") else { throw LinkFailure.closed }
                var reply = try link.readLine(timeout: 30)
                while reply.hasPrefix("EVENT ") { reply = try link.readLine(timeout: 30) }
                guard let credential = field("credential=", in: reply) else { throw LinkFailure.malformed("PAIR got \(reply)") }
                return credential
            case .http:
                let link = try ChaosLink(to: run.http, from: source, timeout: 10)
                guard link.send(ChaosLink.post("/tills/pair", body: #"{"code":"\#(code)"}"#, headers: [], host: "\(run.http)")) else {
                    throw LinkFailure.closed
                }
                let answer = try link.readHTTPAnswer(timeout: 30)
                let body = String(decoding: answer.body, as: UTF8.self)
                guard answer.status == 200, let start = body.range(of: #""credential":""#) else {
                    throw LinkFailure.malformed("POST /tills/pair got \(answer.status) \(body.prefix(200))")
                }
                return String(body[start.upperBound...].prefix { $0 != "\"" })
            }
        } catch {
            throw BenchError.fatal("cannot pair \(name) over \(via.rawValue): \(error)")
        }
    }

    /// The value of the `name=` word of a line (`code=K7QF-M2XP`), up to the next space.
    static func field(_ name: String, in line: String) -> String? {
        guard let found = line.split(separator: " ").first(where: { $0.hasPrefix(name) }) else { return nil }
        let value = found.dropFirst(name.count)
        return value.isEmpty ? nil : String(value)
    }
}
