import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

/// The store id on the wire: `SINCE <seq> store=<id>` and the greeting's `store=` token
/// (PROTOCOL.md, SINCE rule 3). Event-stream ids stay the bare seq (the conformance kit reads
/// them as a number); a reader still takes `<store>:<seq>`.
@Suite(.onOwnThreads) struct StoreIDWireTests {
    @Test func sinceTakesAStoreID() {
        #expect(parse("SINCE 5 store=5f0c9a1e7b2d4c68").command == .since(5, store: "5f0c9a1e7b2d4c68"))
        #expect(parse("since 5 STORE=ab-c.d_e").command == .since(5, store: "ab-c.d_e"))
        #expect(parse("SINCE 5").command == .since(5, store: nil))
        for bad in ["SINCE 5 store=", "SINCE 5 store", "SINCE 5 key=abc", "SINCE 5 store=a b", "SINCE 5 store=é", "SINCE 5 store=a store=b",
                    "SINCE 5 store=" + String(repeating: "a", count: Limits.maxKeyBytes + 1)] {
            #expect(parse(bad).error?.code == .badArgument, "\(bad)")
        }
    }

    @Test func theGreetingNamesTheStore() {
        var out: [UInt8] = []
        Wire.hello(store: "5f0c9a1e7b2d4c68", to: &out)
        let line = String(decoding: out, as: UTF8.self)
        #expect(line == "EVENT HELLO juice-server \(JuiceVersion.current) protocol=1 store=5f0c9a1e7b2d4c68 type HELP for commands\r\n")
        guard case .hello(let text) = ServerLine.parse(String(line.dropLast(2))) else { Issue.record("not a greeting"); return }
        #expect(WireReader.store(hello: text) == "5f0c9a1e7b2d4c68")
        #expect(WireReader.store(hello: "juice-server 1.0.0 protocol=1 type HELP for commands") == nil)
    }

    @Test func streamIDsAreTheSeqAndAReaderTakesAStoreToo() {
        var out: [UInt8] = []
        Wire.appendFullStreamEvent(seq: 7, stock: [1, 2, 3, 4, 5], menu: .standard, to: &out)
        #expect(String(decoding: out, as: UTF8.self).hasPrefix("id: 7\nevent: stock\n"))
        let block = EventStreamBlock(id: "abc:7")
        #expect(block.seq == 7 && block.store == "abc")
        #expect(EventStreamBlock(id: "7").seq == 7 && EventStreamBlock(id: "7").store == nil)
    }
}
