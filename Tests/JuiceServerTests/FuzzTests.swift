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

/// Fuzzing: random and mangled protocol text from seeded clients (see `Fuzz`).
extension HardeningTests {
    // MARK: - 1. Fuzz

    @Test func fuzzedInputNeverHurtsOtherClientsOrChangesStockExceptByValidCommands() async throws {
        try await RunningServer.with { s in
            let fuzzers = 4
            let okReplies = Locked<[(seq: Int, line: String)]>([])
            let problems = Locked<[String]>([])
            let fuzzersDone = Locked(0)
            let finalSeq = Locked<Int?>(nil)
            let watched = Locked<[String]>([])
            let pings = Locked(0)
            let stats = Locked((batches: 0, strings: 0, reconnects: 0, unexpectedCloses: 0))
            let watcher = try LineClient.peer(port: s.port)
            guard case .got(let hello) = watcher.nextLine(), hello.hasPrefix("EVENT HELLO") else {
                Issue.record("no greeting for the watcher")
                return
            }
            let steady = try LineClient.peer(port: s.port)
            _ = steady.nextLine()
            #expect(steady.ask("EVENTS OFF") == "OK EVENTS off")

            onThreads(fuzzers + 2) { n in
                if n < fuzzers {
                    Fuzz.run(port: s.port, seed: 0x5EED_0000 + UInt64(n), raw: n % 2 == 1, batches: 45,
                             okReplies: okReplies, problems: problems, stats: stats)
                    fuzzersDone.update { $0 += 1 }
                } else if n == fuzzers {
                    // The well-behaved client: PING and STOCK keep working during and after the fuzz.
                    var lastSeq = -1
                    while true {
                        let done = fuzzersDone.get == fuzzers
                        let pong = steady.ask("PING")
                        let stock = steady.ask("STOCK")
                        let seq = values(stock)["seq"] ?? -1
                        if pong != "OK PONG" || !stock.hasPrefix("OK STOCK seq=") || seq < lastSeq {
                            problems.update { $0.append("well-behaved client got '\(pong)' / '\(stock)' (last seq \(lastSeq))") }
                            break
                        }
                        lastSeq = seq
                        pings.update { $0 += 1 }
                        if done {
                            finalSeq.update { $0 = seq }
                            break
                        }
                        usleep(5_000)
                    }
                    if finalSeq.get == nil { finalSeq.update { $0 = -1 } }
                } else {
                    // The watcher: every change as an event, in seq order.
                    let deadline = Date().addingTimeInterval(120)
                    while Date() < deadline {
                        if let target = finalSeq.get {
                            let seen = watched.read { $0.last.flatMap { values($0)["seq"] } ?? 0 }
                            if target < 0 || seen >= target { break }
                        }
                        switch watcher.nextLine(timeout: 0.3) {
                        case .got(let l):
                            if l.hasPrefix("EVENT STOCK") { watched.update { $0.append(l) } }
                        case .closed:
                            problems.update { $0.append("the watcher was disconnected") }
                            return
                        case .timeout:
                            continue
                        }
                    }
                }
            }

            let run = stats.get
            let found = problems.get
            #expect(found.isEmpty, "\(found.prefix(10))")
            #expect(run.strings >= 4000, "only \(run.strings) fuzz strings were sent")
            #expect(pings.get > 0)
            // The final state, from a fresh client, and the server still answers.
            let check = try LineClient.peer(port: s.port)
            _ = check.nextLine()
            #expect(check.ask("PING") == "OK PONG")
            let stock = check.ask("STOCK")
            let final = values(stock)
            let seq = final["seq"] ?? -1
            #expect(seq == finalSeq.get)
            // Every applied change was answered with exactly one OK reply: seqs 1...seq, once each.
            let oks = okReplies.get
            let okSeqs = oks.map(\.seq).sorted()
            #expect(okSeqs == Array(stride(from: 1, through: max(seq, 0), by: 1)),
                    "OK changes: \(okSeqs.count), final seq \(seq); duplicates or gaps")
            // The watcher saw exactly those seqs, in order, and the replies agree with the events.
            let events = watched.get
            let eventSeqs = events.map { values($0)["seq"] ?? -1 }
            #expect(eventSeqs == Array(stride(from: 1, through: max(seq, 0), by: 1)))
            var eventBySeq: [Int: [String: Int]] = [:]
            for e in events { eventBySeq[values(e)["seq"] ?? -1] = values(e) }
            var mismatches: [String] = []
            // A sale's reply also says its amount, which its event (stock only) does not.
            for ok in oks where eventBySeq[ok.seq] != values(ok.line).filter({ $0.key != "amount" }) { mismatches.append(ok.line) }
            #expect(mismatches.isEmpty, "replies that disagree with their event: \(mismatches.prefix(5))")
            // Replaying the events from the initial stock gives the final STOCK.
            var replay = ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 10, "mango": 10]
            for e in events {
                for (k, v) in values(e) where k != "seq" { replay[k] = v }
            }
            for (fruit, value) in replay { #expect(final[fruit] == value, "\(fruit): STOCK says \(final[fruit] ?? -1), events say \(value)") }
            print("fuzz: \(run.strings) strings in \(run.batches) batches, \(run.reconnects) reconnects (\(run.unexpectedCloses) unexpected), \(oks.count) OK changes, final seq \(seq), \(pings.get) PING/STOCK rounds")
        }
    }
}
