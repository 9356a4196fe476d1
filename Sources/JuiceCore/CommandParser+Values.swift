/// Store commands from values another codec already read (HTTP's JSON body, a JSON line),
/// refused with the same codes and messages as their line twins.
extension CommandParser {
    /// An ORDER from values already read (HTTP's JSON body), refused with the same codes and
    /// messages as the line `ORDER <juice> <count> [key=<key>]` (the key already checked).
    package func order(juice name: String, count: Int, key: String?) -> Result<StoreCommand, ProtocolError> {
        var name = name
        return name.withUTF8 { bytes in
            guard let juice = menu.juiceIndex(UnsafeRawBufferPointer(bytes)) else {
                return .failure(ProtocolError(.unknownJuice, "no juice named '\(Self.shown(UnsafeRawBufferPointer(bytes)))', see MENU"))
            }
            guard (1...Limits.maxOrderCount).contains(count) else {
                return .failure(ProtocolError(.badArgument, "count must be a whole number from 1 to \(Limits.maxOrderCount)"))
            }
            return .success(.order(OrderRequest(juice: juice, count: count, key: key)))
        }
    }

    /// A RESTOCK or SET from values already read (HTTP's JSON body), refused as its line would be.
    package func stockWrite(_ verb: Verb, fruit name: String, amount: Int, key: String?) -> Result<StoreCommand, ProtocolError> {
        precondition(verb == .restock || verb == .set, "RESTOCK or SET")
        var name = name
        return name.withUTF8 { bytes in
            guard let fruit = menu.fruitIndex(UnsafeRawBufferPointer(bytes)) else {
                return .failure(ProtocolError(.unknownFruit, "no fruit named '\(Self.shown(UnsafeRawBufferPointer(bytes)))', see STOCK"))
            }
            let lowest = verb == .set ? 0 : 1
            guard (lowest...Limits.maxStock).contains(amount) else {
                return .failure(ProtocolError(.badArgument, "amount must be a whole number from \(lowest) to \(Limits.maxStock)"))
            }
            return .success(verb == .set ? .set(fruit: fruit, amount: amount, key: key) : .restock(fruit: fruit, amount: amount, key: key))
        }
    }

    /// A VOID from values already read (HTTP's JSON body), refused as its line would be.
    package func void(sale: Int, reason name: String, key: String?) -> Result<StoreCommand, ProtocolError> {
        guard sale >= 1 else { return .failure(ProtocolError(.badArgument, "the sale is its seq, a whole number from 1")) }
        // Any case, as the line protocol reads it.
        guard let reason = VoidReason(rawValue: name.lowercased()) else {
            return .failure(ProtocolError(.badArgument, "reason must be one of " + VoidReason.allCases.map(\.rawValue).joined(separator: ", ")))
        }
        return .success(.void(VoidRequest(sale: UInt64(sale), reason: reason, key: key)))
    }
}
