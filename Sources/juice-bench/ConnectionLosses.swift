/// Connections the server closed after they were ready. Any loss makes a run's figures
/// untrustworthy, so the report names how many and why the first one went.
struct ConnectionLosses: Equatable {
    var count = 0
    /// Why the first one went (the others usually went the same way).
    var firstReason: String?

    mutating func record(_ reason: String) {
        count += 1
        if firstReason == nil { firstReason = reason }
    }
}
