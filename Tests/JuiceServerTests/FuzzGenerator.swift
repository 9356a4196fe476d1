import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
import JuiceServer

// MARK: - Fuzz generation

enum Fuzz {
    static let verbs = ["ORDER", "RESTOCK", "SET", "STOCK", "EVENTS", "SINCE", "AUTH", "PING", "HELP", "MENU", "STATS",
                        "order", "Restock", "set", "stock", "events", "since", "auth", "ping", "menu", "Stats", "ORDERS", "주문"]
    static let fruits = ["strawberry", "banana", "pineapple", "kiwi", "mango", "딸기", "바나나", "파인애플", "키위", "망고",
                         "KIWI", "Mango", "durian", "두리안", "kiwi ", "바나나나"]
    static let juices = ["strawberry", "banana", "kiwi", "pineapple", "strawberry-banana", "mango", "mango-kiwi", "딸기쥬스",
                         "바나나쥬스", "키위쥬스", "파인애플쥬스", "딸바쥬스", "망고쥬스", "망키쥬스", "MANGO-KIWI", "smoothie", "망키"]
    static let numbers = ["0", "1", "2", "3", "5", "7", "10", "16", "100", "1000", "1001", "-1", "+1", "01", "1e3", "0x10",
                          "999999999", "1000000000", "1000000001", "99999999999999999999999", "١", "３", "1.5", "NaN"]
    static let keys = ["key=a", "key=b", "key=k1", "key=order-7", "key=x:y.z", "key=", "key=한글", "KEY=a",
                       "key=" + String(repeating: "k", count: 65), "key=a b"]
    static let words = ["ON", "off", "on", "OFF", "ALIASES", "aliases", "s3cret", "token", "", "\t", "=", "seq=1", "OK", "ERR", "EVENT"]

    static func pick<T>(_ list: [T], _ rng: inout SeededRNG) -> T { list[Int.random(in: 0..<list.count, using: &rng)] }

    static func space(_ rng: inout SeededRNG) -> String {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return "  "
        case 1: return "\t"
        default: return " "
        }
    }

    static func garbageText(_ rng: inout SeededRNG) -> String {
        let pool = Array("abcXYZ019 =:+,-_.~!@#$%^&*()[]{}<>?/\\|'\"`가나다한글쥬스🍓🥝é".unicodeScalars)
        let n = Int.random(in: 1...24, using: &rng)
        var s = ""
        for _ in 0..<n { s.unicodeScalars.append(pick(pool, &rng)) }
        return s
    }

    /// One line (without its line end) of plausible-but-random protocol text.
    static func tokenLine(_ rng: inout SeededRNG) -> String {
        let sp = space(&rng)
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<26:
            var parts = [pick(["ORDER", "order", "Order"], &rng), pick(juices, &rng)]
            if Bool.random(using: &rng) { parts.append(pick(Array(numbers.prefix(12)) + numbers, &rng)) }
            if Int.random(in: 0..<3, using: &rng) == 0 { parts.append(pick(keys, &rng)) }
            if Int.random(in: 0..<15, using: &rng) == 0 { parts.append(pick(numbers, &rng)) }
            return parts.joined(separator: sp)
        case 26..<36:
            return [pick(["RESTOCK", "restock"], &rng), pick(fruits, &rng), pick(numbers, &rng)].joined(separator: sp)
        case 36..<44:
            return [pick(["SET", "set"], &rng), pick(fruits, &rng), pick(Array(numbers.prefix(9)) + numbers, &rng)].joined(separator: sp)
        case 44..<52:
            return Bool.random(using: &rng) ? "STOCK" : "STOCK" + sp + pick(fruits, &rng)
        case 52..<56:
            return "EVENTS" + sp + pick(words, &rng)
        case 56..<61:
            return "SINCE" + sp + pick(numbers + ["0", "3", "50"], &rng)
        case 61..<64:
            return "AUTH" + sp + pick(words + numbers, &rng)
        case 64..<71:
            return pick(["PING", "HELP", "MENU", "MENU ALIASES", "STATS", "ping", "MENU x", "PING 1", "QUIT now"], &rng)
        case 71..<86:
            let n = Int.random(in: 1...7, using: &rng)
            return (0..<n).map { _ in pick(verbs + fruits + juices + numbers + keys + words, &rng) }.joined(separator: sp)
        case 86..<95:
            return garbageText(&rng)
        case 95..<98:
            // Control characters and invalid UTF-8.
            let bad: [String] = ["PING\u{1B}[2J", "ORDER\u{0}banana", "STOCK\u{7F}", "\u{85}PING", "ORDER banana\u{8}", "\u{7}"]
            return pick(bad, &rng)
        default:
            return ""
        }
    }

    /// A line after which the server hangs up.
    static func closerLine(_ rng: inout SeededRNG) -> String {
        pick(["QUIT", "quit", "GET / HTTP/1.1", "POST /order HTTP/1.0", "Host: juice", "get /x http/1.1",
              String(repeating: "ORDER banana ", count: 400)], &rng)
    }

    /// Whether the server closes the connection after `line` (mirrors the parser's rules).
    static func closes(_ line: String) -> Bool {
        if line.utf8.count > Limits.maxLineBytes { return true }
        let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
        guard let first = tokens.first else { return false }
        if first == "host:" || (first == "quit" && tokens.count == 1) { return true }
        let methods: Set = ["get", "post", "put", "head", "delete", "options", "connect", "patch", "trace"]
        return tokens.count >= 2 && methods.contains(first) && tokens.last!.hasPrefix("http/")
    }

    /// A chunk of raw bytes: random bytes, valid lines with bytes flipped or telnet commands
    /// spliced in, and plain valid lines. At most ~3000 bytes, so no line can pass the limit.
    static func rawBatch(_ rng: inout SeededRNG) -> (bytes: [UInt8], strings: Int) {
        var out: [UInt8] = []
        var strings = 0
        let telnet: [[UInt8]] = [[0xFF, 0xFB, 0x01], [0xFF, 0xFD, 0x03], [0xFF, 0xFA, 0x18, 0x00], [0xFF, 0xF0], [0xFF, 0xF4],
                                 [0xFF, 0xFF], [0xFF, 0xF1], [0xFF], [0xFF, 0xFA], [0x0D, 0x00], [0x00], [0xC3], [0xED, 0xA0, 0x80]]
        while out.count < 2500 {
            strings += 1
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<3:
                let n = Int.random(in: 1...120, using: &rng)
                for _ in 0..<n { out.append(UInt8.random(in: 0...255, using: &rng)) }
            case 3..<7:
                var line = Array(tokenLine(&rng).utf8)
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let at = line.isEmpty ? 0 : Int.random(in: 0...line.count, using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0 where !line.isEmpty && at < line.count: line[at] = UInt8.random(in: 0...255, using: &rng)
                    case 1: line.insert(contentsOf: pick(telnet, &rng), at: at)
                    case 2 where !line.isEmpty && at < line.count: line.remove(at: at)
                    default: line.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                    }
                }
                out += line + (Bool.random(using: &rng) ? [13, 10] : [10])
            default:
                let line = tokenLine(&rng)
                if !closes(line) { out += Array((line + "\r\n").utf8) }
            }
        }
        return (out, strings)
    }

    /// Runs one fuzz connection (reconnecting whenever the server hangs up) and records every
    /// OK change reply it received.
    static func run(port: Int, seed: UInt64, raw: Bool, batches: Int, okReplies: Locked<[(seq: Int, line: String)]>,
                    problems: Locked<[String]>, stats: Locked<(batches: Int, strings: Int, reconnects: Int, unexpectedCloses: Int)>) {
        var rng = SeededRNG(seed: seed)
        func connect() -> LineClient? {
            guard let p = try? LineClient.peer(port: port), case .got(let hello) = p.nextLine(), hello.hasPrefix("EVENT HELLO") else {
                problems.update { $0.append("seed \(seed): could not connect") }
                return nil
            }
            return p
        }
        func record(_ line: String) {
            let change = line.hasPrefix("OK ORDER ") || line.hasPrefix("OK RESTOCK ") || line.hasPrefix("OK SET ")
            if change && !line.hasSuffix(" dup"), let seq = values(line)["seq"] {
                okReplies.update { $0.append((seq, line)) }
            }
        }
        guard var peer = connect() else { return }
        for batch in 0..<batches {
            var bytes: [UInt8] = []
            var strings = 0
            var closing = false
            if raw {
                (bytes, strings) = rawBatch(&rng)
                // Leave any telnet state and end the partial line, whatever state the bytes left.
                bytes += [0xFF, 0xF0, 0xFF, 0xF0, 13, 10]
            } else {
                for _ in 0..<Int.random(in: 20...60, using: &rng) {
                    var line = tokenLine(&rng)
                    if Int.random(in: 0..<150, using: &rng) == 0 { line = closerLine(&rng) }
                    bytes += Array((line + (Bool.random(using: &rng) ? "\r\n" : "\n")).utf8)
                    strings += 1
                    if closes(line) {
                        closing = true
                        break
                    }
                }
            }
            let sentinel = "SYNC-\(seed)-\(batch)"
            if !closing { bytes += Array("\(sentinel)\r\n".utf8) }
            stats.update { $0.batches += 1; $0.strings += strings }
            peer.write(bytes)
            var reconnect = false
            reading: while true {
                switch peer.nextLine() {
                case .got(let l):
                    record(l)
                    if !closing && l.contains("'\(sentinel)'") { break reading }
                case .closed:
                    if !closing {
                        stats.update { $0.unexpectedCloses += 1 }
                    }
                    reconnect = true
                    break reading
                case .timeout:
                    problems.update { $0.append("seed \(seed) batch \(batch): no reply to the sentinel within \(testDeadline) s") }
                    reconnect = true
                    break reading
                }
            }
            if closing && !reconnect {
                problems.update { $0.append("seed \(seed) batch \(batch): still open after a closing line") }
            }
            if reconnect {
                stats.update { $0.reconnects += 1 }
                peer.close()
                guard let next = connect() else { return }
                peer = next
            }
        }
        // Leave politely and read what is left (replies to the last batch came before the sentinel).
        peer.write("QUIT\r\n")
        while case .got(let l) = peer.nextLine() { record(l) }
    }
}
