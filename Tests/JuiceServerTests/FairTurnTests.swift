import Foundation
import Glibc
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// A client that pipelines a burst and never reads gets a turn of its input at a time, then the
/// others get theirs (`FairTurn`). Not timed here (the bench's `fair` scenario measures how
/// long a probe waits): the server is stopped (SIGSTOP) while two bursts and a probe reach its
/// sockets, so all three are ready in the same wake-up, and the order the store applied them in
/// (each change's seq) shows whose commands ran first. Before the fair turn, each burst ran
/// whole from its one read, and the probe's command came after both.
@Suite(.onOwnThreads) struct FairTurnTests {
    /// Pauses the server until every byte sent in `body` waits in its sockets, then resumes it.
    static func whilePaused(_ server: ExecutableServer, _ body: () throws -> Void) rethrows {
        server.signal(SIGSTOP)
        // "T" (stopped) in /proc/<pid>/stat once the signal took effect.
        #expect(eventually { Self.state(of: server.pid) == "T" }, "the server did not stop")
        defer { server.signal(SIGCONT) }
        try body()
        // Sent is not yet there: loopback delivers in a softirq, which a busy machine defers to
        // ksoftirqd after the send returned, and a server resumed before the probe's bytes
        // arrived read the bursts first. Acknowledged is there (the kernel acks what it queued).
        let ports = Set([server.port] + (ExecutableServer.boardPort(in: server.log()).map { [$0] } ?? []))
        #expect(eventually { ProcStat.unacknowledgedBytes(toPorts: ports) == 0 }, "what was sent did not reach the server's sockets")
    }

    /// Whether the servers these tests start see every ready client in one wake-up: one epoll
    /// set does (the default on Linux). The portable poller (`JUICE_POLLER=dispatch`, which CI
    /// also runs) has a Dispatch source per client, whose events are queued one by one, so a
    /// client's next turns may run before another's event is even queued: there only a
    /// structural bound holds.
    static var oneWakeUpSeesEveryClient: Bool { ProcessInfo.processInfo.environment["JUICE_POLLER"] != "dispatch" }

    static func state(of pid: Int32) -> Character? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[close...].dropFirst(2).first
    }

    /// A line client with events off (its replies only, no broadcast of the others' changes).
    static func quietClient(_ server: ExecutableServer) throws -> LineClient {
        let client = try server.client()
        #expect(try client.command("EVENTS OFF") == "OK EVENTS off")
        return client
    }

    /// The seq in `OK RESTOCK seq=N fruit=M`.
    static func seq(_ reply: String) -> Int? {
        guard reply.hasPrefix("OK RESTOCK seq=") else { return nil }
        return Int(reply.dropFirst("OK RESTOCK seq=".count).prefix { $0.isNumber })
    }

    @Test func aProbeIsAnsweredBetweenTwoUnreadBursts() throws {
        let server = try ExecutableServer(["--in-memory"])
        let attackers = [try Self.quietClient(server), try Self.quietClient(server)]
        let fruits = ["kiwi", "mango"]
        let probe = try Self.quietClient(server)
        let burst = 1000
        // 15 and 16 KB: each burst fits one read, before and after (16 KiB).
        try Self.whilePaused(server) {
            for (attacker, fruit) in zip(attackers, fruits) {
                try attacker.sendRaw(Array(String(repeating: "RESTOCK \(fruit) 1\n", count: burst).utf8))
            }
            try probe.send("RESTOCK banana 1")
        }
        // Neither attacker has read a byte of its replies yet.
        let answer = try probe.reply()
        let probeSeq = try #require(Self.seq(answer), "probe got \(answer)")
        // The probe's command ran before the bursts were done, not after both whole bursts (as
        // before the fair turn: seq 2001). How many turns came first depends on the poller (one
        // epoll set sees all three sockets at once; a Dispatch source each may not), so the
        // bound here is structural; how long a probe waits is the bench's to measure.
        #expect(probeSeq < 2 * burst + 1, "the probe's RESTOCK ran after all \(probeSeq - 1) of the bursts' commands")

        // Every command of both bursts is answered, in the order sent: each burst's seqs rise and
        // its fruit counts up by one per reply; together with the probe's, the seqs are 1...2001.
        var seqs: Set<Int> = [probeSeq]
        for (attacker, fruit) in zip(attackers, fruits) {
            var last = 0
            var count: Int?
            for i in 0..<burst {
                let reply = try attacker.readLine()
                guard let seq = Self.seq(reply), seq > last,
                      let amount = Int(reply.split(separator: "=").last ?? ""),
                      count.map({ amount == $0 + 1 }) ?? true else {
                    Issue.record("\(fruit) reply \(i) out of order: \(reply)")
                    break
                }
                last = seq
                count = amount
                seqs.insert(seq)
            }
        }
        #expect(seqs == Set(1...(2 * burst + 1)))
        #expect(server.terminate() == 0)
    }

    /// The same over HTTP: a connection pipelines `GET /state` and never reads; a change made
    /// meanwhile on the line side shows in the answers after the attacker's first turn, so the
    /// change ran between its requests, not after all of them.
    @Test func aChangeRunsBetweenPipelinedHTTPRequests() throws {
        let server = try ExecutableServer(["--in-memory"])
        let http = server.httpPort
        let attacker = try LineClient.peer(port: http)
        let probe = try Self.quietClient(server)
        let requests = 200
        try Self.whilePaused(server) {
            try attacker.sendRaw(Array(String(repeating: "GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", count: requests).utf8))
            try probe.send("RESTOCK kiwi 1")
        }
        #expect(try probe.reply().hasPrefix("OK RESTOCK seq=1 "))
        // Each answer's seq, in order: 0 for those before the change, then 1.
        var seqs: [Int] = []
        for _ in 0..<requests {
            let reply = try HTTPClient.readReply(attacker)
            guard reply.status == 200, let seq = try reply.json()["seq"] as? Int else {
                Issue.record("not a /state answer: \(reply.statusLine) \(reply.text.prefix(100))")
                break
            }
            seqs.append(seq)
        }
        #expect(seqs == seqs.sorted(), "answers out of order")
        let before = seqs.prefix { $0 == 0 }.count
        // Some of the attacker's turns may come first (how many depends on the poller, as
        // above); before the fair turn, all 200 did.
        #expect(before < requests, "all \(requests) requests were answered before the change")
        #expect(server.terminate() == 0)
    }
}
