import Foundation
import Testing
import JuiceTestSupport

/// The pages' live stock (Pages/shared/live-stock.js, which the board, the till, the stock editor
/// and the reports share) across a restored backup (issue 35): a restored store is another store,
/// with seqs that repeat the lost ones. `followStock` is run in node with a fake `fetch` and a fake
/// event stream, the answers and messages coming in the orders a real browser may see them.
///
/// The race the restore drill (Tests/browser/test_restore_drill.py) met: the stream reopens on the
/// restored store and sends its whole state, then a sale; the `/state` the page asked for as the
/// stream reopened answers only after them, from before the sale. That older answer must not
/// undo the sale: a page that took it kept the sold fruit's old count until that fruit changed
/// again.
@Suite(.onOwnThreads) struct LiveStockScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/JuiceHTTP/Pages/shared/live-stock.js").path

    /// Each case: steps in order, then one line "<name>: seq=… store=… banana=… mango=… stream=…"
    /// (`stream`: the store the page's next event stream names).
    static let harness = #"""
        "use strict";
        const fs = require("fs"), vm = require("vm");
        const source = fs.readFileSync(process.argv[2], "utf8");
        const fruits = ["strawberry", "banana", "pineapple", "kiwi", "mango"].map(name => ({ name }));
        const juices = [{ name: "mango", recipe: [{ fruit: "mango", amount: 3 }] }];
        const flush = () => new Promise(r => setImmediate(r));
        async function run(name, steps) {
          const fetches = [];
          let stream = null;
          const ctx = vm.createContext({
            KO: false, console, setTimeout, clearTimeout,
            fetch: url => new Promise(resolve => fetches.push({ url, resolve })),
            followEvents: (on, store) => { stream = { on, store }; },
          });
          vm.runInContext(source, ctx);
          const feed = vm.runInContext("followStock({ menu() {}, stock() {}, live() {} })", ctx);
          for (const [what, arg] of steps) {
            if (what === "state") {
              const f = fetches.shift();
              f.resolve({ ok: true, status: 200, json: () => Promise.resolve(Object.assign({ fruits, juices }, arg)) });
            } else if (what === "drop") stream.on.drop();
            else if (what === "open") stream.on.open();
            else if (what === "event") stream.on.stock({ data: JSON.stringify(arg) });
            await flush();
          }
          console.log(name + ": seq=" + feed.seq + " store=" + feed.store + " banana=" + feed.stock.banana
                      + " mango=" + feed.stock.mango + " stream=" + stream.store());
        }
        // The old store at seq 5; the restored one holds the backup, at seq 3 (banana 8, mango 8).
        const A = { strawberry: 10, banana: 6, pineapple: 8, kiwi: 6, mango: 8 };
        const B = { strawberry: 10, banana: 8, pineapple: 10, kiwi: 6, mango: 8 };
        (async () => {
          await run("older answer after the restored stream", [
            ["state", { seq: 5, store: "a", stock: A }], ["drop"], ["open"],
            ["event", { seq: 3, stock: B }], ["event", { seq: 4, stock: { mango: 5 } }],
            ["state", { seq: 3, store: "b", stock: B }]]);
          await run("answer before the restored stream", [
            ["state", { seq: 5, store: "a", stock: A }], ["drop"], ["open"],
            ["state", { seq: 3, store: "b", stock: B }],
            ["event", { seq: 3, stock: B }], ["event", { seq: 4, stock: { mango: 5 } }]]);
          await run("restored answer alone", [
            ["state", { seq: 5, store: "a", stock: A }], ["drop"], ["open"],
            ["state", { seq: 3, store: "b", stock: B }]]);
          await run("same store, older answer", [
            ["state", { seq: 5, store: "a", stock: A }], ["drop"], ["open"],
            ["event", { seq: 6, stock: { mango: 5 } }],
            ["state", { seq: 5, store: "a", stock: A }]]);
          await run("restored stream, then a restart on it", [
            ["state", { seq: 5, store: "a", stock: A }], ["drop"], ["open"],
            ["event", { seq: 3, stock: B }], ["event", { seq: 4, stock: { mango: 5 } }],
            ["state", { seq: 4, store: "b", stock: Object.assign({}, B, { mango: 5 }) }],
            ["drop"], ["open"], ["event", { seq: 5, stock: { banana: 6 } }],
            ["state", { seq: 4, store: "b", stock: Object.assign({}, B, { mango: 5 }) }]]);
        })();
        """#

    @Test(.requires(.node)) func aRestoredStoresOlderStateAnswerDoesNotUndoWhatItsStreamShowed() throws {
        try OutsideTool.node.require()
        let node = try #require(OutsideTool.onPath("node"))
        let directory = temporaryDirectory("juice-live-stock")
        defer { removeTemporary(directory) }
        let harness = directory + "/harness.js"
        try Data(Self.harness.utf8).write(to: URL(fileURLWithPath: harness))
        let result = try Executables.run(node, [harness, Self.script])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines == [
            // The stream's whole state and the sale after it stand; the store is the restored one.
            "older answer after the restored stream: seq=4 store=b banana=8 mango=5 stream=b",
            // The restored store's answer first: taken though its seq is lower, then the stream.
            "answer before the restored stream: seq=4 store=b banana=8 mango=5 stream=b",
            // The resync itself: another store's lower seq is taken whole.
            "restored answer alone: seq=3 store=b banana=8 mango=8 stream=b",
            // One store: an answer older than the stream's change is left, as ever.
            "same store, older answer: seq=6 store=a banana=6 mango=5 stream=a",
            // Once on the restored store, it is one store again: seq orders its answers.
            "restored stream, then a restart on it: seq=5 store=b banana=6 mango=5 stream=b",
        ], "\(result.output)")
    }
}
