import JuiceClient

/// The till's keyboard as a pure state machine, so the key rules are tested without a terminal:
/// `1`-`9` orders one of that juice (after a short wait for an `x`; Enter or space orders at
/// once), `3x2` orders two of juice 3, `r` asks for a restock (fruit, amount, and the manager
/// token if the server wants one; after an out-of-stock, of the fruit that was short), `u`
/// undoes the last sale (the app asks which, then `w`/`c`/`o` gives the reason), `q` quits.
/// Bytes in, actions out.
public struct TillInput: Sendable {
    public enum Action: Equatable, Sendable {
        case order(item: Int, count: Int)
        case restock(fruit: String, amount: Int, token: String?)
        /// `u`: the app checks there is a sale to undo, then asks (`askUndo`).
        case undo
        /// The reason was given: void sale `sale`.
        case void(sale: Int, reason: VoidReason)
        case quit
        case redraw
    }

    public enum Prompt: Equatable, Sendable {
        case fruit
        case amount(fruit: String)
        case token(fruit: String, amount: Int)
    }

    public enum Mode: Equatable, Sendable {
        case idle
        /// A juice key was pressed: one is ordered unless `x` follows within `pickWait`.
        case picked(item: Int, at: Double)
        /// `<juice>x`: the next digit is the count.
        case times(item: Int)
        case asking(Prompt, typed: [UInt8])
        /// Undo sale `sale` (described as `what`)? One key gives the reason.
        case undoing(sale: Int, what: String)
    }

    /// The reasons a void takes and their keys: w, c, o.
    public static let reasonKeys: [(key: UInt8, reason: VoidReason)] = [
        (UInt8(ascii: "w"), .wrongJuice), (UInt8(ascii: "c"), .customerLeft), (UInt8(ascii: "o"), .other),
    ]

    /// How long a juice key waits for an `x` before ordering one.
    public static let pickWait = 0.8
    /// `pickWait` as the help and the status line say it.
    public static let pickWaitText = "0.8"
    public private(set) var mode = Mode.idle
    /// The fruit the last out-of-stock was short of (the app sets it): `r` then asks only how
    /// much of it to add, as the seeds' "edit the stock?" alert opened the editor on it.
    public var shortFruit: String? = nil

    public init() {}

    /// What the status line shows while a key sequence or a question is under way.
    public var hint: String? {
        switch mode {
        case .idle: return nil
        case .picked(let item, _):
            return "\(item)… orders one in \(Self.pickWaitText) s; x then a digit for more, Enter for one now"
        case .times(let item): return "\(item)x… how many? (1-9)"
        case .asking(let prompt, let typed):
            let text = String(decoding: typed, as: UTF8.self)
            switch prompt {
            case .fruit: return "restock which fruit? \(text)"
            case .amount(let fruit): return "restock \(fruit) by how many? \(text)"
            case .token(_, _): return "manager token: " + String(repeating: "*", count: text.count)
            }
        case .undoing(_, let what):
            // Any other key keeps the sale (the help says so): the line fits 80 columns.
            return "undo \(what)? w wrong juice · c customer left · o other"
        }
    }

    /// `u` found a sale to undo: ask for the reason.
    public mutating func askUndo(sale: Int, what: String) {
        mode = .undoing(sale: sale, what: what)
    }

    /// The server refused a restock for want of a token: ask for it, then try again.
    public mutating func askToken(fruit: String, amount: Int) {
        mode = .asking(.token(fruit: fruit, amount: amount), typed: [])
    }

    /// Time passed: a juice key with no `x` after it orders one.
    public mutating func tick(now: Double) -> [Action] {
        guard case .picked(let item, let at) = mode, now - at >= Self.pickWait else { return [] }
        mode = .idle
        return [.order(item: item, count: 1)]
    }

    public mutating func key(_ byte: UInt8, now: Double) -> [Action] {
        switch mode {
        case .undoing(let sale, _):
            // Any key but a reason's keeps the sale: a void is not undone by another key.
            mode = .idle
            let lower = byte | 0x20
            guard let reason = Self.reasonKeys.first(where: { $0.key == lower })?.reason else { return [.redraw] }
            return [.void(sale: sale, reason: reason)]
        case .asking(let prompt, var typed):
            switch byte {
            case 13, 10: return submit(prompt, String(decoding: typed, as: UTF8.self))
            case 27, 3: mode = .idle // Esc (or a stray Ctrl-C byte) gives up the question
            case 127, 8:
                // Drop the last character: its UTF-8 continuation bytes and its lead byte.
                while let last = typed.popLast(), last & 0xC0 == 0x80 {}
                mode = .asking(prompt, typed: typed)
            default:
                if byte >= 0x20, typed.count < 200 { typed.append(byte) }
                mode = .asking(prompt, typed: typed)
            }
            return [.redraw]
        case .picked(let item, _):
            if byte == UInt8(ascii: "x") || byte == UInt8(ascii: "X") {
                mode = .times(item: item)
                return [.redraw]
            }
            mode = .idle
            let ordered = Action.order(item: item, count: 1)
            if byte == 13 || byte == 10 || byte == 32 { return [ordered] }
            return [ordered] + key(byte, now: now)
        case .times(let item):
            mode = .idle
            if let digit = Self.digit(byte) { return [.order(item: item, count: digit)] }
            return [.redraw]
        case .idle:
            if let digit = Self.digit(byte) {
                mode = .picked(item: digit, at: now)
                return [.redraw]
            }
            switch byte {
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): return [.quit]
            case UInt8(ascii: "u"), UInt8(ascii: "U"): return [.undo]
            case UInt8(ascii: "r"), UInt8(ascii: "R"):
                mode = .asking(shortFruit.map { .amount(fruit: $0) } ?? .fruit, typed: [])
                return [.redraw]
            case 12: return [.redraw] // Ctrl-L
            default: return []
            }
        }
    }

    private mutating func submit(_ prompt: Prompt, _ text: String) -> [Action] {
        let text = text.trimmingCharacters(in: .whitespaces)
        switch prompt {
        case .fruit:
            mode = text.isEmpty ? .idle : .asking(.amount(fruit: text), typed: [])
            return [.redraw]
        case .amount(let fruit):
            guard let amount = Int(text), amount > 0 else {
                mode = .asking(.amount(fruit: fruit), typed: [])
                return [.redraw]
            }
            mode = .idle
            shortFruit = nil
            return [.restock(fruit: fruit, amount: amount, token: nil)]
        case .token(let fruit, let amount):
            mode = .idle
            return text.isEmpty ? [.redraw] : [.restock(fruit: fruit, amount: amount, token: text)]
        }
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

extension Set where Element == Character {
    fileprivate static let whitespaces: Set<Character> = [" ", "\t"]
}
