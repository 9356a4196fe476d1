import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer

/// A third protocol, added from outside the server's code: JSON lines. One command object per
/// line in (`{"order":"mango-kiwi","count":2,"key":"t-1"}`), one outcome object per line out
/// (`{"ok":true,"seq":1,"stock":{"mango":6,"kiwi":8}}`), and every change pushed as
/// `{"event":"stock","seq":1,"stock":{...}}`.
///
/// It is the proof that a protocol is a codec and a session, nothing more: it registers itself
/// with a `ProtocolListing`, and no file of Loop/, Store/ or Storage/ knows it exists.
final class JSONLinesProtocol: ServedProtocol, @unchecked Sendable {
    // @unchecked: loop-confined, like every protocol (the loop runs it and the store).
    static let name = "jsonl"

    static func listing(port: Int?) -> ProtocolListing {
        ProtocolListing(name: name, port: port) { JSONLinesProtocol($0) }
    }

    /// A line longer than this is refused and the connection closed: its work stays bounded.
    static let maxLine = 1024

    let store: FruitStore
    let parser: CommandParser
    let output: OutputPath
    unowned let host: any ConnectionHost
    private let fruitKeys: [[UInt8]]

    init(_ services: LoopServices) {
        store = services.store
        parser = CommandParser(menu: services.store.menu)
        output = services.output
        host = services.host
        fruitKeys = services.store.menu.fruits.map { JSONText.memberKey($0.name) }
    }

    var logName: String { "JSON lines" }
    var acceptsWhileDraining: Bool { false }
    var eventsFromStart: Bool { true }

    func busyRefusal(perAddress: Bool) -> [UInt8] { Array("{\"ok\":false,\"error\":\"BUSY\"}\n".utf8) }

    func session(for conn: Connection) -> any ConnectionSession { JSONLinesSession(conn, protocol: self) }

    func appendEvent(seq: UInt64, _ touched: [FruitValue], to out: inout [UInt8]) {
        out.append(ascii: "{\"event\":\"stock\",")
        appendSeqAndStock(seq: seq, touched, to: &out)
        out.append(ascii: "}\n")
    }

    func stop() {}

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

/// One JSON-lines client: its partial line, typed, in its own session.
final class JSONLinesSession: ConnectionSession {
    private unowned let conn: Connection
    private unowned let json: JSONLinesProtocol
    private var partial: [UInt8] = []

    init(_ conn: Connection, protocol json: JSONLinesProtocol) {
        self.conn = conn
        self.json = json
    }

    var wantsInput: Bool { true }
    var onlyListens: Bool { false }

    func accepted() {}
    func drained() {}
    func closed() {}
    func shuttingDown(byeAfter lsn: UInt64) {}

    func inputEnded() { json.host.finish(conn) }

    func received(_ bytes: UnsafeRawBufferPointer) {
        var out: [UInt8] = []
        var lsn: UInt64 = 0
        var events: [StockEvent] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                partial.append(byte)
                if partial.count > JSONLinesProtocol.maxLine {
                    json.appendRefusal(ProtocolError(.lineTooLong, "a line may hold at most \(JSONLinesProtocol.maxLine) bytes; closing"), to: &out)
                    conn.stopInput()
                    break
                }
                continue
            }
            let line = partial
            partial.removeAll(keepingCapacity: true)
            switch command(line) {
            case .failure(let error):
                json.appendRefusal(error, to: &out)
            case .success(let command):
                let (json, peer) = (self.json, conn.peer)
                let end = json.store.assumeIsolated { store in
                    store.run(CollectionOfOne(command), peer: peer) { json.appendOutcome($0, to: &out) }
                }
                lsn = max(lsn, end.lsn)
                events += end.events
            }
        }
        if !out.isEmpty { json.output.send(conn, out, after: lsn) }
        if !events.isEmpty { json.host.publish(events) }
        if conn.isFinishing { json.host.finish(conn) }
    }

    /// `{"order":"mango","count":2,"key":"k"}` or `{"stock":true}`.
    private func command(_ line: [UInt8]) -> Result<Command, ProtocolError> {
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
