import JuiceCore
import JuiceDomain
import JuiceLoop
import JuiceServices

/// A third protocol, added from outside the server's code: JSON lines. One command object per
/// line in (`{"order":"mango-kiwi","count":2,"key":"t-1"}`), one outcome object per line out
/// (`{"ok":true,"seq":1,"stock":{"mango":6,"kiwi":8}}`), and every change pushed as
/// `{"event":"stock","seq":1,"stock":{...}}`.
///
/// It is the proof that a protocol is a codec and a session, nothing more. A target of its own
/// that imports no server internals and nothing `@testable`: it registers itself with a
/// `ProtocolListing`, reaches its connections only through `SessionLink` and paces them with
/// `PacedInput` (the fair turn and the output budget, as the line protocol), and no target of
/// the server knows it exists.
package final class JSONLinesProtocol: ServedProtocol, @unchecked Sendable {
    // @unchecked: loop-confined, like every protocol (the loop runs it and the store).
    package static let name = "jsonl"

    package static func listing(port: Int?) -> ProtocolListing {
        ProtocolListing(name: name, port: port) { JSONLinesProtocol($0) }
    }

    /// A line longer than this is refused and the connection closed: its work stays bounded.
    static let maxLine = 1024
    /// Its commands stop running once this much of a client's output is pending.
    static let outputBudget = 64 * 1024

    let loop: LoopServices
    let store: FruitStore
    let parser: CommandParser
    private let fruitKeys: [[UInt8]]

    init(_ services: LoopServices) {
        loop = services
        store = services.store
        parser = CommandParser(menu: services.store.menu)
        fruitKeys = services.store.menu.fruits.map { JSONText.memberKey($0.name) }
    }

    package var logName: String { "JSON lines" }
    package var acceptsWhileDraining: Bool { false }
    package var eventsFromStart: Bool { true }

    package func busyRefusal(perAddress: Bool) -> [UInt8] { Array("{\"ok\":false,\"error\":\"BUSY\"}\n".utf8) }

    package func session(for conn: Connection) -> any ConnectionSession { JSONLinesSession(SessionLink(conn, loop), protocol: self) }

    package func appendEvent(seq: UInt64, _ touched: [FruitValue], to out: inout [UInt8]) {
        out.append(ascii: "{\"event\":\"stock\",")
        appendSeqAndStock(seq: seq, touched, to: &out)
        out.append(ascii: "}\n")
    }

    package func stop() {}

    /// `"seq":N,"stock":{...}`.
    func appendSeqAndStock(seq: UInt64, _ touched: [FruitValue], to out: inout [UInt8]) {
        out.append(ascii: "\"seq\":")
        out.append(decimal: seq)
        out.append(ascii: ",\"stock\":")
        JSONText.appendObject(touched, key: { fruitKeys[$0.fruit] }, value: { $0.value }, to: &out)
    }

    /// One outcome as a line.
    func appendOutcome(_ outcome: StoreOutcome, to out: inout [UInt8]) {
        switch outcome {
        case .write(let write):
            let dup: Bool
            let first: WriteOutcome
            if case .duplicate(let original) = write { (dup, first) = (true, original) } else { (dup, first) = (false, write) }
            if case .applied(let change) = first {
                out.append(ascii: "{\"ok\":true,")
                appendSeqAndStock(seq: change.seq, change.touched, to: &out)
                out.append(ascii: dup ? ",\"dup\":true}\n" : "}\n")
            } else if let error = Wire.refusal(first, menu: store.menu) {
                appendRefusal(error, to: &out)
            }
        case .stock(let seq, let stock, _):
            out.append(ascii: "{\"ok\":true,")
            appendSeqAndStock(seq: seq, stock.enumerated().map { FruitValue(fruit: $0.offset, value: $0.element) }, to: &out)
            out.append(ascii: "}\n")
        case .stats, .report, .since, .tills:
            appendRefusal(ProtocolError(.badRequest, "not spoken here"), to: &out)
        }
    }

    func appendRefusal(_ error: ProtocolError, to out: inout [UInt8]) {
        out.append(contentsOf: Array(JSONText.object([("ok", "false"), ("error", JSONText.string(error.code.rawValue)),
                                                      ("message", JSONText.string(error.message))]).utf8))
        out.append(ascii: "\n")
    }
}

/// One JSON-lines client: its partial line, typed, in its own session, paced as every line
/// client is (`PacedInput`).
final class JSONLinesSession: ConnectionSession {
    private let link: SessionLink
    private unowned let json: JSONLinesProtocol
    private let input = PacedInput(budget: JSONLinesProtocol.outputBudget)
    private var partial: [UInt8] = []

    init(_ link: SessionLink, protocol json: JSONLinesProtocol) {
        self.link = link
        self.json = json
    }

    var wantsInput: Bool { input.wantsInput }
    var onlyListens: Bool { false }

    func accepted() {}
    func closed() {}
    func shuttingDown(byeAfter lsn: UInt64) {}

    func drained() {
        var turn = link.turn()
        input.carryOn(link, &turn) { run($0, &$1) }
    }

    func inputEnded() { drained() }

    func received(_ bytes: UnsafeRawBufferPointer) {
        var turn = link.turn()
        let used = run(bytes, &turn)
        if used < bytes.count { input.keep(UnsafeRawBufferPointer(rebasing: bytes[used...]), link) }
        input.carryOn(link, &turn) { run($0, &$1) }
    }

    /// Runs the lines in `bytes` while its turn and budget allow; returns the bytes it took.
    private func run(_ bytes: UnsafeRawBufferPointer, _ turn: inout FairTurn) -> Int {
        var reply = Reply()
        var used = 0
        for byte in bytes {
            // Asked at a line's first byte: the bytes of a line only wait in `partial`, so the
            // turn and the budget matter where a line may run, not per byte.
            guard !partial.isEmpty || input.mayRun(link, replyBytes: reply.bytes.count, turn) else { break }
            used += 1
            guard byte == UInt8(ascii: "\n") else {
                partial.append(byte)
                if partial.count > JSONLinesProtocol.maxLine {
                    json.appendRefusal(ProtocolError(.lineTooLong, "a line may hold at most \(JSONLinesProtocol.maxLine) bytes; closing"), to: &reply.bytes)
                    link.stopReading()
                    break
                }
                continue
            }
            turn.countLine()
            let line = partial
            partial.removeAll(keepingCapacity: true)
            switch command(line) {
            case .failure(let error):
                json.appendRefusal(error, to: &reply.bytes)
            case .success(let command):
                let json = self.json
                link.run([command], into: &reply) { json.appendOutcome($0, to: &$1) }
            }
        }
        turn.countOutput(reply.bytes.count)
        link.answer(&reply)
        return used
    }

    /// `{"order":"mango","count":2,"key":"k"}` or `{"stock":true}`.
    private func command(_ line: [UInt8]) -> Result<StoreCommand, ProtocolError> {
        guard case .success(let value) = JSONReader.parse(line), case .object = value else {
            return .failure(ProtocolError(.badRequest, "one JSON object per line"))
        }
        if value["stock"] != nil { return .success(.stock(fruit: nil)) }
        guard case .string(let juice) = value["order"] ?? .null else {
            return .failure(ProtocolError(.badRequest, "expected {\"order\":\"<juice>\"} or {\"stock\":true}"))
        }
        var key: String?
        if case .string(let text) = value["key"] ?? .null {
            guard Array(text.utf8).withUnsafeBytes({ CommandParser.isValidKey($0) }) else { return .failure(ProtocolError(.badArgument, CommandParser.keyRule)) }
            key = text
        }
        return json.parser.order(juice: juice, count: value["count"]?.integer ?? 1, key: key)
    }
}
