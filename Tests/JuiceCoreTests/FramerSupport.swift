import Testing
@testable import JuiceCore

// What the LineFramer tests share: cuts of a byte stream, and a framer fed chunk by chunk.

/// How a byte stream is cut into reads: the framer must produce the same lines whatever the cut
/// (the drip-feeding idea of NIO's ByteToMessageDecoderVerifier).
enum Split: CustomTestStringConvertible, CaseIterable, Sendable {
    case whole, byteByByte, random1, random2, random3

    var testDescription: String { "\(self)" }

    func chunks(_ input: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole:
            return [input]
        case .byteByByte:
            return input.map { [$0] }
        case .random1, .random2, .random3:
            let seed: UInt64 = self == .random1 ? 1 : self == .random2 ? 0xBEEF : 987_654_321
            var rng = SeededRNG(seed: seed)
            var out: [[UInt8]] = []
            var i = 0
            while i < input.count {
                // Mostly small reads, sometimes empty ones, sometimes big ones.
                let n: Int
                switch rng.next() % 10 {
                case 0: n = 0
                case 1: n = Int(rng.next() % 5000)
                default: n = 1 + Int(rng.next() % 7)
                }
                let end = min(input.count, i + n)
                out.append(Array(input[i..<end]))
                i = end
            }
            return out
        }
    }
}

struct FramerRun {
    var lines: [[UInt8]] = []
    /// The first non-ok outcome, if any.
    var outcome: LineFramer.Outcome = .ok
    var maxPending = 0
    var framer: LineFramer
}

/// Feeds every chunk (also after a failure) and records what came out.
func runFramer(_ chunks: [[UInt8]], maxLineBytes: Int = Limits.maxLineBytes) -> FramerRun {
    var run = FramerRun(framer: LineFramer(maxLineBytes: maxLineBytes))
    for chunk in chunks {
        var lines: [[UInt8]] = []
        let outcome = chunk.withUnsafeBytes { buf in
            run.framer.feed(buf) { lines.append(Array($0)) }
        }
        run.lines += lines
        run.maxPending = max(run.maxPending, run.framer.pendingBytes)
        if run.outcome == .ok {
            run.outcome = outcome
        } else {
            #expect(outcome == .lineTooLong, "a failed framer keeps reporting lineTooLong")
            #expect(lines.isEmpty, "a failed framer emits nothing")
        }
    }
    return run
}
