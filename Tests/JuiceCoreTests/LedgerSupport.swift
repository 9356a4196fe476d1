import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

// What the ledger, key memory and replay tests share.

func request(_ juice: Int, _ count: Int = 1, key: String? = nil) -> OrderRequest {
    OrderRequest(juice: juice, count: count, key: key)
}

/// The tests read outcomes in the line protocol's words (`Wire`), for the standard menu.
extension WriteOutcome {
    /// A refusal's `ERR` line.
    var refusalLine: String? { Wire.refusal(self, menu: .standard)?.line }
    var refusal: (error: ProtocolError, have: [Int])? {
        if case .outOfStock(_, let have) = self { return (Wire.refusal(self, menu: .standard)!, have) }
        return nil
    }
    var duplicateReply: [UInt8]? {
        if case .duplicate(let first) = self { return Wire.replyLine(to: first, menu: .standard) }
        return nil
    }
    var keyReusedError: ProtocolError? {
        if case .keyReused = self { return Wire.refusal(self, menu: .standard) }
        return nil
    }
}

extension Optional where Wrapped == Change {
    struct Refused: Error {}
    /// A RESTOCK's change, or a thrown error if it was refused (over the ceiling).
    func get() throws -> Change {
        guard let self else { throw Refused() }
        return self
    }
    func ignore() {}
}

/// Everything observable about a ledger, to compare two of them.
struct LedgerState: Equatable, CustomStringConvertible {
    let stock: [Int]
    let seq: UInt64
    let served: UInt64
    let refused: UInt64
    let sold: [UInt64]
    let lost: [UInt64]
    let short: [UInt64]
    let keys: [String]
    let entries: [KeyMemory.Entry]

    init(_ l: StockLedger) {
        stock = l.stock
        seq = l.seq
        served = l.ordersServed
        refused = l.ordersRefused
        sold = l.sold
        lost = l.lost
        short = l.short
        keys = l.keys.inOrder.map(\.key)
        entries = l.keys.inOrder.map(\.entry)
    }

    var description: String { "stock=\(stock) seq=\(seq) served=\(served) refused=\(refused) sold=\(sold) lost=\(lost) short=\(short) keys=\(keys)" }
}

extension Result {
    func ignore() {}
}
