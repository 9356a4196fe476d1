/// How every line the server sends looks on the wire: the one home of the reply and event text.
/// Lines are built from domain values (a `Change`, stock, counters) straight into an output
/// buffer, ending with CRLF. `ServerLine` and `WireReader` read them back on the client side, and
/// `WireRoundTripTests` checks that the two agree.
///
/// Split by theme: this file holds the fixed lines, the menu lines and the `ERR` form;
/// `Wire+Stock.swift` the stock replies and events (the hot path) and the stock refusals;
/// `Wire+Stats.swift` the `STATS` line.
package enum Wire {
    package static let commandList = "HELP PING MENU [ALIASES|PRICES] | STOCK [fruit] | ORDER <juice> [count] [key=<token>] | VOID <sale seq> <reason> [key=<token>] | RESTOCK <fruit> <amount> [key=<token>] | SET <fruit> <amount> [key=<token>] | EVENTS ON|OFF | SINCE <seq> [store=<id>] | STATS | REPORT [YYYY-MM-DD] | AUTH <token> | PAIR <code> | TILL <credential> | TILLS [NEW [name] | RENAME <till> <name> | REVOKE <till>] | QUIT"

    /// The greeting, an event so that line-matching clients can skip it like any other push.
    /// `store` is the store's id (PROTOCOL.md, SINCE): a client sends it back with `SINCE`.
    package static func hello(store: String? = nil, to out: inout [UInt8]) {
        out.append("EVENT HELLO juice-server \(JuiceVersion.current) protocol=1\(store.map { " store=" + $0 } ?? "") type HELP for commands")
        out.appendLineEnd()
    }

    // Fixed lines, each with its CRLF, encoded once.

    package static let help = line("OK HELP \(commandList)")
    package static let pong = line("OK PONG")
    /// The reply to QUIT; the connection closes after it.
    package static let bye = line("OK BYE")
    package static let authOK = line("OK AUTH")
    /// Sent once to a connection over `--max-clients`, which is then closed.
    package static let busy = line("ERR \(ErrorCode.busy.rawValue) max clients reached")
    /// Over `--max-clients-per-address`: the others' slots are not this address's to take.
    package static let busyForAddress = line("ERR \(ErrorCode.busy.rawValue) too many connections from your address")
    /// Sent to every client when the server shuts down.
    package static let byeEvent = line("EVENT BYE shutting down")
    /// Added to the original reply of a keyed order that is repeated (see `KeyMemory`).
    package static let dupSuffix = line(" dup")

    private static let eventsOn = line("OK EVENTS on")
    private static let eventsOff = line("OK EVENTS off")

    /// `OK EVENTS on` / `OK EVENTS off`.
    package static func eventsReply(on: Bool) -> [UInt8] { on ? eventsOn : eventsOff }

    /// `OK SINCE <after> <current>`: the head of a catch-up (PROTOCOL.md, SINCE).
    package static func sinceHeader(after: UInt64, current: UInt64, to out: inout [UInt8]) {
        out.append(ascii: "OK SINCE ")
        out.append(decimal: after)
        out.append(ascii: " ")
        out.append(decimal: current)
        out.appendLineEnd()
    }

    // MARK: - Menu

    /// `OK MENU strawberry=strawberry:16 ... mango-kiwi=mango:2+kiwi:1`.
    package static func menuLine(_ menu: Menu) -> String {
        let juices = menu.juices.map { juice in
            juice.name + "=" + juice.recipe.map { "\(menu.fruits[$0.fruit].name):\($0.amount)" }.joined(separator: "+")
        }
        return "OK MENU " + juices.joined(separator: " ")
    }

    /// `OK MENU ALIASES fruit:strawberry=딸기 ... juice:mango-kiwi=망키쥬스` (aliases comma-separated).
    package static func menuAliasesLine(_ menu: Menu) -> String {
        let fruits = menu.fruits.map { "fruit:\($0.name)=\($0.aliases.joined(separator: ","))" }
        let juices = menu.juices.map { "juice:\($0.name)=\($0.aliases.joined(separator: ","))" }
        return "OK MENU ALIASES " + (fruits + juices).joined(separator: " ")
    }

    /// The MENU and MENU ALIASES replies as bytes with CRLF (the server encodes them once).
    package static func menuReply(_ menu: Menu) -> [UInt8] { line(menuLine(menu)) }
    package static func menuAliasesReply(_ menu: Menu) -> [UInt8] { line(menuAliasesLine(menu)) }
    package static func menuPricesReply(_ menu: Menu) -> [UInt8] { line(menuPricesLine(menu)) }

    /// `OK MENU PRICES currency=KRW minor_digits=0 strawberry=6000 ...` (each juice's price in
    /// minor units, menu order), or `OK MENU PRICES none` for a menu without prices.
    package static func menuPricesLine(_ menu: Menu) -> String {
        guard let currency = menu.currency else { return "OK MENU PRICES none" }
        let prices = menu.juices.map { "\($0.name)=\($0.price ?? 0)" }
        return "OK MENU PRICES currency=\(currency.code) minor_digits=\(currency.minorDigits) " + prices.joined(separator: " ")
    }

    // MARK: - Errors

    /// `ERR <CODE> <message>`, without CRLF: also the form a refused keyed order is remembered in.
    package static func errorLine(_ error: ProtocolError) -> String {
        "ERR \(error.code.rawValue) \(error.message)"
    }

    /// `ERR <CODE> <message>` + CRLF.
    package static func appendError(_ error: ProtocolError, to out: inout [UInt8]) {
        out.append(ascii: "ERR ")
        out.append(error.code.rawValue)
        out.append(ascii: " ")
        out.append(error.message)
        out.appendLineEnd()
    }

    /// Refusals the connection itself sends (AUTH, an overlong line).
    package static let noManagerToken = ProtocolError(.authFailed, "no manager token is configured")
    /// A wrong manager token (AUTH, or a Bearer token over HTTP). `closingAfter`: the number of
    /// failures after which the connection is closed, when this one reached it.
    package static func wrongToken(closingAfter failures: Int? = nil) -> ProtocolError {
        ProtocolError(.authFailed, failures.map { "wrong token; \($0) failures, closing" } ?? "wrong token")
    }

    /// A token refused unchecked: too many wrong ones from this address lately.
    package static func tooManyAuthFailures(retryIn seconds: Int, closing: Bool = false) -> ProtocolError {
        ProtocolError(.authFailed, "too many failures, retry in \(seconds) s\(closing ? "; closing" : "")")
    }
    /// A change refused because the journal has no room for its record (a full disk): nothing
    /// was applied. `reason` says what failed: "disk full: cannot grow the journal (No space left
    /// on device)".
    package static func readOnly(_ reason: String) -> ProtocolError { ProtocolError(.readOnly, reason) }
    /// A change refused for a moment while the journal grows (not a full disk): try again.
    package static let journalGrowing = ProtocolError(.busy, "the journal is still growing; try again in a moment")
    package static let lineTooLong = ProtocolError(.lineTooLong, "a line may hold at most \(Limits.maxLineBytes) bytes; closing")

    private static func line(_ text: String) -> [UInt8] {
        var out = Array(text.utf8)
        out.appendLineEnd()
        return out
    }
}
