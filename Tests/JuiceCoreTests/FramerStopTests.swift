import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

/// `feed(_:until:)`: a caller that stops after a line gets back how much of the chunk was
/// taken, and feeding the rest later yields exactly the lines a whole feed would, whatever the
/// cut and wherever it stops (plain and telnet paths).
@Suite(.onOwnThreads) struct FramerStopTests {
    static let plain = Array("SINCE 0\r\nPING\n\nSTOCK kiwi\nORDER mango 2\npartial".utf8)
    /// The same lines with telnet bytes in the stream: IAC WILL x, IAC IAC (a literal 0xFF).
    static let telnet: [UInt8] = [0xFF, 0xFB, 0x01] + Array("SINCE 0\r\nPING\n".utf8) + [0xFF, 0xFF] + Array("\nSTOCK\npartial".utf8)

    /// Feeds `input` in `split`'s chunks, stopping after every `stopEvery`-th line and feeding
    /// the rest of that chunk again, as the server does with deferred input.
    static func lines(_ input: [UInt8], split: Split, stopEvery: Int) -> (lines: [[UInt8]], pending: Int) {
        var framer = LineFramer()
        var out: [[UInt8]] = []
        for chunk in split.chunks(input) {
            var rest = chunk[...]
            while true {
                let progress = Array(rest).withUnsafeBytes { bytes in
                    framer.feed(bytes, until: { line in
                        out.append(Array(line))
                        return out.count % stopEvery != 0
                    })
                }
                #expect(progress.outcome == .ok)
                #expect(progress.consumed <= rest.count)
                rest = rest.dropFirst(progress.consumed)
                if rest.isEmpty { break }
            }
        }
        return (out, framer.pendingBytes)
    }

    @Test(arguments: Split.allCases, [1, 2, 3, 100])
    func stoppingAndResumingYieldsTheSameLines(split: Split, stopEvery: Int) {
        for input in [Self.plain, Self.telnet] {
            let whole = Self.lines(input, split: .whole, stopEvery: 1_000_000)
            let stopped = Self.lines(input, split: split, stopEvery: stopEvery)
            #expect(stopped.lines == whole.lines)
            #expect(stopped.pending == whole.pending)
        }
    }

    @Test func consumedEndsRightAfterTheStoppingLine() {
        var framer = LineFramer()
        let input = Array("A\r\nB\nC\n".utf8)
        let progress = input.withUnsafeBytes { framer.feed($0, until: { _ in false }) }
        #expect(progress == LineFramer.Progress(outcome: .ok, consumed: 3))
        let telnetInput: [UInt8] = [0xFF, 0xFE, 0x01, 65, 10, 66, 10]
        var telnetFramer = LineFramer()
        let telnetProgress = telnetInput.withUnsafeBytes { telnetFramer.feed($0, until: { _ in false }) }
        #expect(telnetProgress == LineFramer.Progress(outcome: .ok, consumed: 5))
    }

    @Test func anOverlongLineTakesTheWholeChunk() {
        var framer = LineFramer(maxLineBytes: 8)
        let input = Array("OK\n0123456789\nPING\n".utf8)
        var seen: [[UInt8]] = []
        let progress = input.withUnsafeBytes { framer.feed($0, until: { seen.append(Array($0)); return true }) }
        #expect(progress == LineFramer.Progress(outcome: .lineTooLong, consumed: input.count))
        #expect(seen == [Array("OK".utf8)])
    }
}
