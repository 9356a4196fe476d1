import Foundation
import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

/// A menu whose names need escaping in JSON and in Prometheus label values.
let awkwardMenu: Menu = {
    do {
        return try Menu(fruits: [Fruit(name: "say\"hi\"", aliases: ["딸기"]), Fruit(name: "back\\slash")],
                        juices: [Juice(name: "q\"\\mix", aliases: ["믹스"], recipe: [Ingredient(fruit: 0, amount: 2), Ingredient(fruit: 1, amount: 3)]),
                                 Juice(name: "딸기쥬스", recipe: [Ingredient(fruit: 0, amount: 1)])])
    } catch {
        fatalError("\(error)")
    }
}()

func sales(_ menu: Menu, journal: JournalCounts? = JournalCounts(syncs: 4, records: 9)) -> SalesValues {
    SalesValues(menu: menu, seq: 12, ordersServed: 9, ordersRefused: 3, stock: menu.fruits.indices.map { 7 + $0 },
                sold: menu.juices.indices.map { UInt64(4 + $0) }, lost: menu.juices.indices.map { UInt64(2 * $0 + 1) },
                short: menu.fruits.indices.map { UInt64(2 + $0) },
                perMinute: [MinuteCount(start: 1_763_900_000, served: 3, refused: 1), MinuteCount(start: 1_763_900_060, served: 0, refused: 0)],
                journal: journal)
}

/// Parses a JSON text with Foundation's parser: whatever JSONText writes must be valid JSON.
func parsedJSON(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

@Suite("JSON documents", .onOwnThreads)
struct JSONDocumentTests {
    @Test("strings: quote, backslash, every control character, U+2028/9 escaped; the rest as UTF-8")
    func escaping() throws {
        #expect(JSONText.string("a\"b\\c") == #""a\"b\\c""#)
        #expect(JSONText.string("\u{0}\u{1}\n\r\t\u{1F}") == #""\u0000\u0001\u000a\u000d\u0009\u001f""#)
        #expect(JSONText.string("\u{7F}딸기/é👨‍🍳") == "\"\u{7F}딸기/é👨‍🍳\"")
        #expect(JSONText.string("\u{2028}\u{2029}") == #""\u2028\u2029""#)
        #expect(JSONText.string("") == "\"\"")
        // Every scalar below 0x80, and some beyond, comes back unchanged through a real parser.
        let all = String(String.UnicodeScalarView((0..<0x80).compactMap(Unicode.Scalar.init))) + "딸기\u{2028}é\u{FEFF}"
        #expect(try parsedJSON(JSONText.string(all)) as? String == all)
        #expect(!JSONText.string(all).unicodeScalars.contains { $0.value < 0x20 }, "no raw control character is left")
    }

    @Test("objects keep their keys in the order given")
    func order() {
        #expect(JSONText.object([("z", "1"), ("a", JSONText.strings(["x", "y"])), ("m", JSONText.array([]))]) == #"{"z":1,"a":["x","y"],"m":[]}"#)
    }

    @Test("/sales: the contract's keys, in its order, per juice and fruit in menu order")
    func salesBody() throws {
        let body = SalesJSON.body(sales(.standard))
        #expect(body.hasPrefix(#"{"seq":12,"orders_served":9,"orders_refused":3,"juices":[{"name":"strawberry","aliases":["딸기쥬스"],"sold":4,"lost":1},"#))
        #expect(body.contains(#"{"name":"mango-kiwi","aliases":["망키쥬스"],"sold":10,"lost":13}],"fruits":[{"name":"strawberry","aliases":["딸기"],"stock":7,"short":2},"#))
        #expect(body.hasSuffix(#"{"name":"mango","aliases":["망고"],"stock":11,"short":6}],"per_minute":[{"t":1763900000,"served":3,"refused":1},{"t":1763900060,"served":0,"refused":0}],"#
                               + #""voids":0,"currency":{"code":"KRW","minor_digits":0},"takings":0,"lost_revenue":0,"voided_amount":0}"#))
        let parsed = try #require(try parsedJSON(body) as? [String: Any])
        #expect((parsed["juices"] as? [Any])?.count == 7 && (parsed["fruits"] as? [Any])?.count == 5)
    }

    @Test("/sales and /state with names that need escaping parse back to the names")
    func awkwardNames() throws {
        for body in [SalesJSON.body(sales(awkwardMenu)), StateJSON.body(menu: awkwardMenu, seq: 3, stock: [5, 6])] {
            let parsed = try #require(try parsedJSON(body) as? [String: Any])
            let juices = try #require(parsed["juices"] as? [[String: Any]])
            #expect(juices.map { $0["name"] as? String } == ["q\"\\mix", "딸기쥬스"])
            let fruits = try #require(parsed["fruits"] as? [[String: Any]])
            #expect(fruits.map { $0["name"] as? String } == ["say\"hi\"", "back\\slash"])
        }
        let state = try #require(try parsedJSON(StateJSON.body(menu: awkwardMenu, seq: 3, stock: [5, 6])) as? [String: Any])
        #expect(state["stock"] as? [String: Int] == ["say\"hi\"": 5, "back\\slash": 6])
        #expect(state["can_make"] as? [String: Int] == ["q\"\\mix": 2, "딸기쥬스": 5])
    }

    @Test("/state: the menu with aliases and recipes, stock, and what the stock can make")
    func stateBody() {
        let body = StateJSON.body(menu: .standard, seq: 3, stock: [15, 10, 0, 7, 5])
        #expect(body == #"{"seq":3,"fruits":[{"name":"strawberry","aliases":["딸기"]},{"name":"banana","aliases":["바나나"]},{"name":"pineapple","aliases":["파인애플"]},{"name":"kiwi","aliases":["키위"]},{"name":"mango","aliases":["망고"]}],"#
                + #""juices":[{"name":"strawberry","aliases":["딸기쥬스"],"recipe":[{"fruit":"strawberry","amount":16}],"price":6000},{"name":"banana","aliases":["바나나쥬스"],"recipe":[{"fruit":"banana","amount":2}],"price":4000},{"name":"kiwi","aliases":["키위쥬스"],"recipe":[{"fruit":"kiwi","amount":3}],"price":4500},{"name":"pineapple","aliases":["파인애플쥬스"],"recipe":[{"fruit":"pineapple","amount":2}],"price":4500},{"name":"strawberry-banana","aliases":["딸바쥬스"],"recipe":[{"fruit":"strawberry","amount":10},{"fruit":"banana","amount":1}],"price":5500},{"name":"mango","aliases":["망고쥬스"],"recipe":[{"fruit":"mango","amount":3}],"price":5000},{"name":"mango-kiwi","aliases":["망키쥬스"],"recipe":[{"fruit":"mango","amount":2},{"fruit":"kiwi","amount":1}],"price":5500}],"#
                + #""stock":{"strawberry":15,"banana":10,"pineapple":0,"kiwi":7,"mango":5},"#
                + #""can_make":{"strawberry":0,"banana":5,"kiwi":2,"pineapple":0,"strawberry-banana":1,"mango":1,"mango-kiwi":2},"read_only":null,"#
                + #""currency":{"code":"KRW","minor_digits":0}}"#)
        let readOnly = StateJSON.body(menu: .standard, seq: 3, stock: [15, 10, 0, 7, 5], readOnly: "disk full: \"x\"")
        #expect(readOnly.hasSuffix(#","read_only":"disk full: \"x\"","currency":{"code":"KRW","minor_digits":0}}"#))
        // A menu without prices: the document it gave before money, byte for byte.
        #expect(!StateJSON.body(menu: awkwardMenu, seq: 3, stock: [5, 6]).contains("currency"))
        #expect(!StateJSON.body(menu: awkwardMenu, seq: 3, stock: [5, 6]).contains("price"))
    }
}
