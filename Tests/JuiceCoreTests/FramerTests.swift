import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

let IAC: UInt8 = 0xFF
let WILL: UInt8 = 0xFB, WONT: UInt8 = 0xFC, DO: UInt8 = 0xFD, DONT: UInt8 = 0xFE
let SB: UInt8 = 0xFA, SE: UInt8 = 0xF0, IP: UInt8 = 0xF4, NOP: UInt8 = 0xF1

struct FramerCase: CustomTestStringConvertible, Sendable {
    let name: String
    let input: [UInt8]
    let lines: [[UInt8]]
    var testDescription: String { name }
}

let framerCases: [FramerCase] = [
    FramerCase(name: "LF", input: bytes("PING\nSTOCK\n"), lines: [bytes("PING"), bytes("STOCK")]),
    FramerCase(name: "CRLF", input: bytes("PING\r\nORDER mango 2\r\n"), lines: [bytes("PING"), bytes("ORDER mango 2")]),
    FramerCase(name: "mixed endings", input: bytes("A\r\nB\nC\r\n"), lines: [bytes("A"), bytes("B"), bytes("C")]),
    FramerCase(name: "empty lines", input: bytes("\r\n\n\r\nX\n"), lines: [[], [], [], bytes("X")]),
    FramerCase(name: "lone CR kept", input: bytes("a\rb\r\n"), lines: [bytes("a\rb")]),
    FramerCase(name: "CR CR LF keeps one CR", input: bytes("a\r\r\n"), lines: [bytes("a\r")]),
    FramerCase(name: "CR at start", input: bytes("\rX\n"), lines: [bytes("\rX")]),
    FramerCase(name: "unfinished tail not emitted", input: bytes("PING\nSTO"), lines: [bytes("PING")]),
    FramerCase(name: "non-ASCII passes through", input: bytes("ORDER 망키쥬스\r\n"), lines: [bytes("ORDER 망키쥬스")]),
    FramerCase(name: "IAC WILL x", input: [IAC, WILL, 0x01] + bytes("PING\r\n"), lines: [bytes("PING")]),
    FramerCase(name: "IAC WONT/DO/DONT x", input: [IAC, WONT, 0x03, IAC, DO, 0x18, IAC, DONT, 0x1F] + bytes("PING\r\n"), lines: [bytes("PING")]),
    FramerCase(name: "negotiation inside a line", input: bytes("PI") + [IAC, DO, 0x01] + bytes("NG\r\n"), lines: [bytes("PING")]),
    FramerCase(name: "option byte that looks like LF", input: bytes("PI") + [IAC, WILL, 0x0A] + bytes("NG\n"), lines: [bytes("PING")]),
    FramerCase(name: "IAC SB ... IAC SE", input: [IAC, SB, 0x18, 0x00] + bytes("xterm\n") + [IAC, SE] + bytes("PING\r\n"), lines: [bytes("PING")]),
    FramerCase(name: "IAC IAC inside SB", input: [IAC, SB, 0x18, IAC, IAC, 0x00, IAC, SE] + bytes("STATS\n"), lines: [bytes("STATS")]),
    FramerCase(name: "IAC IAC is a literal 0xFF", input: bytes("A") + [IAC, IAC] + bytes("B\r\n"), lines: [[0x41, 0xFF, 0x42]]),
    FramerCase(name: "IAC IP clears the partial line", input: bytes("ORD") + [IAC, IP] + bytes("PING\r\n"), lines: [bytes("PING")]),
    FramerCase(name: "IAC NOP dropped", input: bytes("PI") + [IAC, NOP] + bytes("NG\n"), lines: [bytes("PING")]),
    FramerCase(name: "telnet then plain lines", input: [IAC, WILL, 0x01] + bytes("A\nB\r\n\nC\n"), lines: [bytes("A"), bytes("B"), [], bytes("C")]),
]

@Suite("LineFramer", .onOwnThreads)
struct FramerTests {
    @Test("same lines whatever the reads", arguments: framerCases, Split.allCases)
    func sameLinesAnySplit(_ c: FramerCase, _ split: Split) {
        let run = runFramer(split.chunks(c.input))
        #expect(run.outcome == .ok)
        #expect(run.lines == c.lines)
    }

    @Test("the unfinished tail is held as pending bytes")
    func pending() {
        let run = runFramer([bytes("PING\nSTO")])
        #expect(run.framer.pendingBytes == 3)
        var f = run.framer
        var lines: [[UInt8]] = []
        let outcome = bytes("CK\r\n").withUnsafeBytes { f.feed($0) { lines.append(Array($0)) } }
        #expect(outcome == .ok)
        #expect(lines == [bytes("STOCK")])
        #expect(f.pendingBytes == 0)
    }

    @Test("an empty read changes nothing")
    func emptyRead() {
        var f = LineFramer()
        var called = false
        let outcome = [UInt8]().withUnsafeBytes { f.feed($0) { _ in called = true } }
        #expect(outcome == .ok)
        #expect(!called)
        #expect(f.pendingBytes == 0)
    }

    @Test("a line of exactly the limit is accepted", arguments: ["\r\n", "\n"], Split.allCases)
    func exactlyTheLimit(_ end: String, _ split: Split) {
        let line = [UInt8](repeating: 0x61, count: Limits.maxLineBytes)
        let run = runFramer(split.chunks(bytes("PING\n") + line + bytes(end) + bytes("STATS\n")))
        #expect(run.outcome == .ok)
        #expect(run.lines == [bytes("PING"), line, bytes("STATS")])
        #expect(run.maxPending <= Limits.maxLineBytes + 1)
    }

    @Test("one byte over the limit is lineTooLong", arguments: ["\r\n", "\n"], Split.allCases)
    func overTheLimit(_ end: String, _ split: Split) {
        let line = [UInt8](repeating: 0x61, count: Limits.maxLineBytes + 1)
        let run = runFramer(split.chunks(bytes("PING\n") + line + bytes(end) + bytes("STATS\n")))
        #expect(run.outcome == .lineTooLong)
        #expect(run.lines == [bytes("PING")], "lines before the long one are delivered, none after")
        #expect(run.maxPending <= Limits.maxLineBytes + 1)
    }

    @Test("the limit through the telnet path too", arguments: Split.allCases)
    func limitsInTelnetMode(_ split: Split) {
        let ok = [UInt8](repeating: 0x62, count: Limits.maxLineBytes)
        let long = [UInt8](repeating: 0x63, count: Limits.maxLineBytes + 1)
        let good = runFramer(split.chunks([IAC, NOP] + ok + bytes("\r\n")))
        #expect(good.outcome == .ok)
        #expect(good.lines == [ok])
        let bad = runFramer(split.chunks([IAC, NOP] + long + bytes("\r\n")))
        #expect(bad.outcome == .lineTooLong)
        #expect(bad.lines.isEmpty)
        // An IAC IAC counts as one byte of the line.
        let escaped = runFramer(split.chunks([IAC, NOP] + ok.dropLast() + [IAC, IAC] + bytes("\r\n")))
        #expect(escaped.outcome == .ok)
        #expect(escaped.lines == [ok.dropLast() + [0xFF]])
    }

    @Test("the limit's CR may arrive alone, its LF later")
    func limitThenCRThenLF() {
        let line = [UInt8](repeating: 0x61, count: Limits.maxLineBytes)
        let run = runFramer([line, bytes("\r"), bytes("\n")])
        #expect(run.outcome == .ok)
        #expect(run.lines == [line])
        #expect(run.maxPending == Limits.maxLineBytes + 1)
    }

    @Test("4098 bytes without a newline fail at once")
    func failsWithoutNewline() {
        let run = runFramer([[UInt8](repeating: 0x61, count: Limits.maxLineBytes + 1), [0x61]])
        #expect(run.outcome == .lineTooLong)
        #expect(run.framer.pendingBytes == 0, "the partial line is dropped on failure")
    }

    @Test("a 1 MiB line without newline never buffers past the limit", arguments: [false, true], [UInt64(7), 99])
    func megabyteWithoutNewline(telnet: Bool, seed: UInt64) {
        var rng = SeededRNG(seed: seed)
        var f = LineFramer()
        var lines = 0
        var fed = 0
        var outcome = LineFramer.Outcome.ok
        if telnet {
            let r = [IAC, NOP].withUnsafeBytes { f.feed($0) { _ in lines += 1 } }
            #expect(r == .ok)
        }
        while fed < 1 << 20 {
            let n = 1 + Int(rng.next() % UInt64(Limits.maxLineBytes - 1))
            let chunk = [UInt8](repeating: 0x78, count: n)
            outcome = chunk.withUnsafeBytes { f.feed($0) { _ in lines += 1 } }
            fed += n
            #expect(f.pendingBytes <= Limits.maxLineBytes + 1)
            if outcome != .ok { break }
        }
        #expect(outcome == .lineTooLong)
        #expect(fed <= 2 * Limits.maxLineBytes + 2, "the failure is reported as soon as the limit is passed")
        #expect(lines == 0)
        // Once failed, nothing more is accepted, not even a good line.
        var after: [[UInt8]] = []
        let again = bytes("PING\r\n").withUnsafeBytes { f.feed($0) { after.append(Array($0)) } }
        #expect(again == .lineTooLong)
        #expect(after.isEmpty)
        #expect(f.pendingBytes == 0)
    }

    @Test("telnet commands split at every position", arguments: [
        [IAC, SB, 0x18, 0x00] + bytes("xterm-256color") + [IAC, SE],
        [IAC, WILL, 0x01],
        [IAC, DONT, 0x22],
        [IAC, SB, IAC, IAC, IAC, SE],
    ])
    func telnetSplitEverywhere(_ command: [UInt8]) {
        let input = bytes("PI") + command + bytes("NG\r\n")
        for cut in 0...input.count {
            let run = runFramer([Array(input[..<cut]), Array(input[cut...])])
            #expect(run.outcome == .ok)
            #expect(run.lines == [bytes("PING")], "cut at \(cut)")
        }
    }

    @Test("IAC IP split from its IAC still clears the line")
    func interruptSplit() {
        let run = runFramer([bytes("ORDER mango"), [IAC], [IP], bytes("PING\r\n")])
        #expect(run.lines == [bytes("PING")])
        #expect(run.framer.pendingBytes == 0)
    }

    /// A reference model of the framer without telnet: split on LF, drop one CR before it.
    static func model(_ input: [UInt8], limit: Int) -> (lines: [[UInt8]], failed: Bool) {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        for b in input {
            if b == 0x0A {
                if current.last == 0x0D { current.removeLast() }
                if current.count > limit { return (lines, true) }
                lines.append(current)
                current = []
            } else {
                current.append(b)
                if current.count > limit + 1 { return (lines, true) }
            }
        }
        return (lines, false)
    }

    @Test("random streams match a reference model under random reads", arguments: UInt64(1)...UInt64(40))
    func randomAgainstModel(seed: UInt64) {
        var rng = SeededRNG(seed: seed)
        let limit = 8
        let alphabet: [UInt8] = [0x61, 0x62, 0x0D, 0x0A, 0x20, 0xC3, 0xA9]
        var input: [UInt8] = []
        for _ in 0..<Int(rng.next() % 300) {
            // LF is more frequent than in text so that most lines stay under the small limit.
            input.append(rng.next() % 4 == 0 ? 0x0A : alphabet[Int(rng.next() % UInt64(alphabet.count))])
        }
        let expected = Self.model(input, limit: limit)
        for split in Split.allCases {
            let run = runFramer(split.chunks(input), maxLineBytes: limit)
            #expect(run.lines == expected.lines, "seed \(seed) \(split)")
            #expect((run.outcome == .lineTooLong) == expected.failed, "seed \(seed) \(split)")
            #expect(run.maxPending <= limit + 1)
        }
        // Byte by byte with the same input also equals one cut at every position.
        let whole = runFramer([input], maxLineBytes: limit)
        for cut in stride(from: 0, through: input.count, by: max(1, input.count / 10)) {
            let two = runFramer([Array(input[..<cut]), Array(input[cut...])], maxLineBytes: limit)
            #expect(two.lines == whole.lines)
            #expect(two.outcome == whole.outcome)
        }
    }

    @Test("random telnet streams give the same lines under any reads", arguments: UInt64(100)...UInt64(120))
    func randomTelnetConsistency(seed: UInt64) {
        var rng = SeededRNG(seed: seed)
        let pieces: [[UInt8]] = [
            bytes("a"), bytes("b"), bytes("\r"), bytes("\n"), bytes("\r\n"), [IAC, IAC], [IAC, IP], [IAC, NOP],
            [IAC, WILL, 0x01], [IAC, DO, 0x0A], [IAC, SB, 0x18, 0x0A, IAC, IAC, IAC, SE],
        ]
        var input: [UInt8] = []
        for _ in 0..<Int(rng.next() % 200) { input += pieces[Int(rng.next() % UInt64(pieces.count))] }
        let whole = runFramer([input], maxLineBytes: 16)
        for split in Split.allCases {
            let run = runFramer(split.chunks(input), maxLineBytes: 16)
            #expect(run.lines == whole.lines, "seed \(seed) \(split)")
            #expect(run.outcome == whole.outcome)
        }
        // Without IAC IP and with telnet commands stripped, the lines match the plain model.
        let plain = pieces.filter { !$0.contains(IAC) }
        var clean: [UInt8] = []
        var noisy: [UInt8] = []
        for _ in 0..<Int(rng.next() % 200) {
            let p = pieces[Int(rng.next() % UInt64(pieces.count))]
            if p == [IAC, IP] || p == [IAC, IAC] { continue }
            noisy += p
            if plain.contains(p) { clean += p }
        }
        let expected = Self.model(clean, limit: 16)
        let run = runFramer(Split.random2.chunks(noisy), maxLineBytes: 16)
        #expect(run.lines == expected.lines)
        #expect((run.outcome == .lineTooLong) == expected.failed)
    }
}
