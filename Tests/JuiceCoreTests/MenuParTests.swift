import Foundation
import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

/// Par levels (issue 24): a menu file may give a fruit `par`, the count the shelf should hold at
/// opening. It is optional, checked like the other fields, and shown in `/state`.
@Suite("Menu par", .onOwnThreads)
struct MenuParTests {
    static let withPar = """
        {"fruits": [{"name": "kiwi", "aliases": ["키위"], "par": 40}, {"name": "mango", "initial_stock": 3}],
         "juices": [{"name": "mango-kiwi", "recipe": [{"fruit": "mango", "amount": 2}, {"fruit": "kiwi", "amount": 1}]}]}
        """

    @Test("a fruit may have a par; one without keeps none")
    func parsed() throws {
        let m = try parseMenu(Self.withPar).get()
        #expect(m.par == [40, nil])
        #expect(m.initialStock == [nil, 3])
        // par is not stock: a new store still starts at the initial stock.
        #expect(StockLedger(menu: m).stock == [10, 3])
    }

    @Test("a menu without par has none, and prints as before")
    func older() throws {
        let m = try parseMenu(MenuFile.json(.standard)).get()
        #expect(m.par == [nil, nil, nil, nil, nil])
        #expect(!MenuFile.json(m).contains("par"))
    }

    @Test("par round-trips through the printed menu, and two menus differing only in par differ")
    func roundTrip() throws {
        let m = try parseMenu(Self.withPar).get()
        let json = MenuFile.json(m)
        #expect(json.contains("\"par\" : 40"), "\(json)")
        let back = try parseMenu(json).get()
        #expect(back == m && back.par == [40, nil])
        let other = try parseMenu(Self.withPar.replacingOccurrences(of: "\"par\": 40", with: "\"par\": 41")).get()
        #expect(other != m)
    }

    @Test("the limits: 0 and 1,000,000,000 are fine")
    func limits() throws {
        for value in [0, 1_000_000_000] {
            let m = try parseMenu(Self.withPar.replacingOccurrences(of: "40", with: String(value))).get()
            #expect(m.par == [value, nil])
        }
    }

    @Test("a bad par is refused, naming the fruit or the field", arguments: [
        ("-1", "fruits[0] \"kiwi\": par must be 0 to 1000000000, not -1"),
        ("1000000001", "fruits[0] \"kiwi\": par must be 0 to 1000000000, not 1000000001"),
        ("\"forty\"", "wrong type at .fruits[0].par"),
        ("2.5", "bad JSON at .fruits[0].par: par must be a whole number 0 to 1000000000, not 2.5"),
        ("1e30", "bad JSON at .fruits[0].par: par must be a whole number 0 to 1000000000, not 1e+30"),
        ("null", nil),
    ] as [(String, String?)])
    func refused(value: String, message: String?) throws {
        let error = parseError(Self.withPar.replacingOccurrences(of: "40", with: value))
        guard let message else {
            // null is the same as no par.
            #expect(error == nil, "\(error ?? "")")
            #expect(try parseMenu(Self.withPar.replacingOccurrences(of: "40", with: value)).get().par == [nil, nil])
            return
        }
        #expect(error?.contains(message) == true, "\(error ?? "accepted")")
    }

    @Test("Menu itself checks par")
    func menuChecks() {
        func error(_ par: [Int?]) -> String? {
            do { _ = try Menu(fruits: kiwiOnly, juices: [juice("x")], par: par); return nil } catch { return error.message }
        }
        #expect(error([-5]) == "fruits[0] \"kiwi\": par must be 0 to 1000000000, not -5")
        #expect(error([1, 2]) == "par must list every fruit")
        #expect(error([nil]) == nil && error([7]) == nil)
    }

    @Test("/state gives par only to the fruits that have one")
    func state() throws {
        let m = try parseMenu(Self.withPar).get()
        let body = StateJSON.body(menu: m, seq: 1, stock: [5, 3])
        #expect(body.hasPrefix(#"{"seq":1,"fruits":[{"name":"kiwi","aliases":["키위"],"par":40},{"name":"mango","aliases":[]}],"#), "\(body)")
    }
}
