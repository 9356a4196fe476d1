@testable import JuiceCore
import Testing
import JuiceDomain
import JuiceStorage

/// `append(decimal:)` writes what `String(n)` writes, at every length and both ends of the range.
@Suite(.onOwnThreads) struct DecimalBytesTests {
    @Test func everyLengthAndTheEdges() {
        var values: [Int] = [0, 1, 9, 10, 11, 99, 100, -1, -9, -10, Int.max, Int.min, Int.max - 1, Int.min + 1]
        var power = 1
        for _ in 1...18 {
            power *= 10
            values += [power - 1, power, power + 1, -power]
        }
        for value in values {
            var out: [UInt8] = [UInt8(ascii: "x")]
            out.append(decimal: value)
            #expect(out == Array(("x" + String(value)).utf8), "\(value)")
        }
        var big: [UInt8] = []
        big.append(decimal: UInt64.max)
        #expect(big == Array(String(UInt64.max).utf8))
    }
}
