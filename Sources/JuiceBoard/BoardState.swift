import Foundation
import JuiceCore

/// Where the board stands with the server, for the status line.
public enum ConnectionStatus: Equatable, Sendable {
    case connecting
    case connected
    /// Lost the server; `attempt` counts retries since the last good session.
    case reconnecting(attempt: Int)
}

/// What the board knows about the store: the menu, the stock and how fresh it is.
/// Pure data: the protocol session (BoardSession) decides what to apply when.
public struct BoardState: Equatable, Sendable {
    /// Nil until the server's `OK MENU` arrived.
    public var menu: Menu? = nil
    public var aliases: Aliases = .none
    /// Fruits in the server's menu order, as listed by `OK STOCK`.
    public var fruits: [String] = []
    public var stock: [String: Int] = [:]
    /// The seq of the last change applied; nil until the first snapshot arrived.
    public var seq: Int? = nil
    /// When this board last saw the stock change (not set by the initial snapshot).
    public var lastChange: Date? = nil
    public var connection: ConnectionStatus = .connecting
    /// "host:port" of the server, for the status line.
    public var serverAddress: String = ""

    public init() {}

    public var hasSnapshot: Bool { seq != nil }

    public func count(of fruit: String) -> Int { stock[fruit] ?? 0 }

    /// How many of `juice` the current stock can make.
    public func servings(of juice: Juice) -> Int { menu?.servings(of: juice, from: stock) ?? 0 }

    /// Below this the fruit is flagged low: the largest amount any single recipe takes.
    public func isLow(_ fruit: String) -> Bool {
        let count = count(of: fruit)
        return count > 0 && count < (menu?.thirstiestAmount(of: fruit) ?? 0)
    }

    /// Replaces the whole stock with a full snapshot (`OK STOCK`, or an event carrying every fruit).
    /// The fruit order comes from the snapshot, so a menu change on the server shows up here.
    public mutating func replaceStock(with snapshot: StockUpdate) {
        fruits = snapshot.values.map(\.fruit)
        stock = Dictionary(snapshot.values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { _, last in last })
        seq = snapshot.seq
    }

    /// The stock as a snapshot in menu order (for plain output and change detection).
    public var snapshot: StockUpdate? {
        guard let seq else { return nil }
        return StockUpdate(seq: seq, values: fruits.map { ($0, count(of: $0)) })
    }
}
