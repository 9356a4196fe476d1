import Foundation
@testable import JuiceBoard
import JuiceCore

/// The server's default menu, as the wire shows it. Names are hard-coded here, in tests only.
enum ServerLines {
    static let hello = "EVENT HELLO juice-server 1.0.0 protocol=1 type HELP for commands"
    static let menu = "OK MENU strawberry=strawberry:16 banana=banana:2 kiwi=kiwi:3 pineapple=pineapple:2 strawberry-banana=strawberry:10+banana:1 mango=mango:3 mango-kiwi=mango:2+kiwi:1"
    static let aliases = "OK MENU ALIASES fruit:strawberry=딸기 fruit:banana=바나나 fruit:pineapple=파인애플 fruit:kiwi=키위 fruit:mango=망고 juice:strawberry=딸기쥬스 juice:banana=바나나쥬스 juice:kiwi=키위쥬스 juice:pineapple=파인애플쥬스 juice:strawberry-banana=딸바쥬스 juice:mango=망고쥬스 juice:mango-kiwi=망키쥬스"
    static let fruits = ["strawberry", "banana", "pineapple", "kiwi", "mango"]

    static func stock(seq: Int, _ values: [Int]) -> String {
        "OK STOCK seq=\(seq) " + zip(fruits, values).map { "\($0)=\($1)" }.joined(separator: " ")
    }

    static func fullEvent(seq: Int, _ values: [Int]) -> String {
        "EVENT STOCK seq=\(seq) " + zip(fruits, values).map { "\($0)=\($1)" }.joined(separator: " ")
    }
}

let t0 = Date(timeIntervalSince1970: 1_700_000_000)

/// A session that went through the whole startup: greeting, MENU, MENU ALIASES, STOCK.
func syncedSession(seq: Int = 0, values: [Int] = [10, 10, 10, 10, 10], aliases: Bool = true) -> BoardSession {
    var session = BoardSession(serverAddress: "127.0.0.1:7878")
    session.connectionOpened()
    _ = session.receive(ServerLines.hello, now: t0)
    _ = session.receive(ServerLines.menu, now: t0)
    _ = session.receive(aliases ? ServerLines.aliases : "ERR UNKNOWN_COMMAND no aliases here", now: t0)
    _ = session.receive(ServerLines.stock(seq: seq, values), now: t0)
    return session
}

/// The values the board holds, in menu order.
func values(_ session: BoardSession) -> [Int] {
    session.state.fruits.map { session.state.count(of: $0) }
}

/// A board state for rendering tests: the default menu, the given stock, connected.
func renderState(_ values: [Int], seq: Int = 7, lastChange: Date? = Date(timeIntervalSince1970: 12 * 3600 + 34 * 60 + 56)) -> BoardState {
    var state = BoardState()
    state.menu = WireReader.menu(fields: ServerLine.fields(of: ServerLines.menu, dropping: 2))!
    state.aliases = Aliases.parse(fields: ServerLine.fields(of: ServerLines.aliases, dropping: 3))
    state.replaceStock(with: StockUpdate(seq: seq, values: Array(zip(ServerLines.fruits, values)).map { ($0.0, $0.1) }))
    state.lastChange = lastChange
    state.connection = .connected
    state.serverAddress = "127.0.0.1:7878"
    return state
}

extension ServerLine {
    /// The space-separated fields of `line` after its first `dropping` words.
    static func fields(of line: String, dropping: Int) -> [Substring] {
        Array(line.split(separator: " ").dropFirst(dropping))
    }
}

let utc = TimeZone(identifier: "UTC")!
