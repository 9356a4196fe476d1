import JSONLinesProtocol
import JuiceCore
import JuiceServer
import JuiceServices
import JuiceTestSupport
import Testing

/// A third protocol, JSON lines, added by this test target alone: it sells through the same
/// store, key memory and journal as the line protocol and HTTP, and its clients receive every
/// change, theirs and the others', as the others receive theirs.
@Suite(.onOwnThreads) struct JSONLinesProtocolTests {
    func withServer(dataDirectory: String? = nil, _ body: (_ server: Server, _ line: Int, _ json: Int) async throws -> Void) async throws {
        var config = ServerConfig()
        config.port = 0
        config.httpPort = 0
        config.dataDirectory = dataDirectory
        config.extraProtocols = [JSONLinesProtocol.listing(port: 0)]
        let server = try Server.make(config)
        let line = try await server.start()
        do {
            let json = try #require(await server.port(of: JSONLinesProtocol.name))
            try await body(server, line, json)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func itSellsAndEveryProtocolHearsOfIt() async throws {
        try await withServer { _, linePort, jsonPort in
            let till = try LineClient(port: jsonPort, readGreeting: false)
            let screen = try LineClient(port: jsonPort, readGreeting: false)
            let display = try LineClient(port: linePort)
            try till.send(#"{"order":"mango-kiwi","count":2,"key":"t-1"}"#)
            #expect(try till.readLine() == #"{"ok":true,"seq":1,"stock":{"mango":6,"kiwi":8}}"#)
            // Its own change comes back to it as an event, after its answer, as on the line.
            #expect(try till.readLine() == #"{"event":"stock","seq":1,"stock":{"mango":6,"kiwi":8}}"#)
            #expect(try screen.readLine() == #"{"event":"stock","seq":1,"stock":{"mango":6,"kiwi":8}}"#)
            #expect(try display.nextEvent() == "EVENT STOCK seq=1 mango=6 kiwi=8")

            // A line client's order reaches the JSON-lines clients in their words.
            #expect(try display.command("ORDER banana") == "OK ORDER banana 1 seq=2 banana=8 amount=4000")
            #expect(try screen.readLine() == #"{"event":"stock","seq":2,"stock":{"banana":8}}"#)
            #expect(try till.readLine() == #"{"event":"stock","seq":2,"stock":{"banana":8}}"#)

            // One key memory for all protocols: the retry is a duplicate, whoever sends it.
            try till.send(#"{"order":"mango-kiwi","count":2,"key":"t-1"}"#)
            #expect(try till.readLine() == #"{"ok":true,"seq":1,"stock":{"mango":6,"kiwi":8},"dup":true}"#)
            #expect(try display.command("ORDER mango-kiwi 2 key=t-1") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000 dup")

            // Refusals in its words; nothing changes.
            try till.send(#"{"order":"mango-kiwi","count":100}"#)
            #expect(try till.readLine() == #"{"ok":false,"error":"OUT_OF_STOCK","message":"needs mango=200 kiwi=100 has mango=6 kiwi=8"}"#)
            try till.send("not json")
            #expect(try till.readLine() == #"{"ok":false,"error":"BAD_REQUEST","message":"one JSON object per line"}"#)
            try till.send(#"{"stock":true}"#)
            #expect(try till.readLine() == #"{"ok":true,"seq":2,"stock":{"strawberry":10,"banana":8,"pineapple":10,"kiwi":8,"mango":6}}"#)
        }
    }

    @Test func aDurableOrderIsAnsweredOnceOnDisk() async throws {
        let directory = TemporaryDirectory()
        try await withServer(dataDirectory: directory.path) { server, _, jsonPort in
            let till = try LineClient(port: jsonPort, readGreeting: false)
            try till.send(#"{"order":"banana","key":"d-1"}"#)
            #expect(try till.readLine() == #"{"ok":true,"seq":1,"stock":{"banana":8}}"#)
            #expect(await server.seq == 1)
        }
        // Reopened: the order is there, and so is its key.
        try await withServer(dataDirectory: directory.path) { _, _, jsonPort in
            let till = try LineClient(port: jsonPort, readGreeting: false)
            try till.send(#"{"order":"banana","key":"d-1"}"#)
            #expect(try till.readLine() == #"{"ok":true,"seq":1,"stock":{"banana":8},"dup":true}"#)
        }
    }

    @Test func anOverlongLineIsRefusedAndClosed() async throws {
        try await withServer { _, _, jsonPort in
            let client = try LineClient(port: jsonPort, readGreeting: false)
            _ = client.write(String(repeating: "x", count: 5000))
            #expect(try client.readLine().hasPrefix(#"{"ok":false,"error":"LINE_TOO_LONG""#))
            #expect(client.waitClosed())
        }
    }
}
