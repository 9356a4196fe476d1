import Foundation
import Testing
import JuiceCore

/// The board when its server comes back on another store whose seq is already ahead (a swapped
/// box, a restored backup of another shop): it shows that store's whole state, not the other
/// store's later changes applied to its own (stores have ids: PROTOCOL.md, SINCE rule 3).
@Suite(.serialized, .onOwnThreads) struct LiveStoreSwapTests {
    @Test(.timeLimit(.minutes(3)))
    func anotherStoreAheadIsShownWhole() throws {
        try #require(FileManager.default.isExecutableFile(atPath: executable("juice-server")))
        try LiveReconnectTests.withServerAndBoard("juice-board-store-swap") { live, display, work in
            // The other store, made beforehand: five pineapple juices, seq 5.
            let other = try ExecutableServer(["--data", work + "/other", "--port", "0"])
            let cashier = try other.client()
            for _ in 0..<5 { #expect(try cashier.command("ORDER pineapple").hasPrefix("OK ORDER")) }
            other.stop()

            // The board's own store: two changes of banana (+3, then an order of 2), seq 2.
            let port = live.port
            #expect(eventually { printedSeqs(display.output).contains(0) })
            try LiveReconnectTests.makeChanges(0..<2, port: port)
            #expect(eventually { printedSeqs(display.output).contains(2) })

            live.stop()
            live = try ExecutableServer.restart(["--data", work + "/other"], port: port)
            let whole = "seq=5 strawberry=10 banana=10 pineapple=0 kiwi=10 mango=10"
            #expect(eventually { display.output.split(separator: "\n").last.map(String.init) == whole },
                    "board: \(display.output) \(display.errors)")
        }
    }
}
