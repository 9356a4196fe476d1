import Foundation
import Testing
import JuiceCore
import JuiceDomain

/// A menu's money as a shop writes it (issue 33), and what it refuses, naming the field.
@Suite("Menu money", .onOwnThreads)
struct MenuMoneyTests {
    static func menu(currency: String? = "KRW", juice: String = "mango", price: String = "5000") -> Data {
        let currencyField = currency.map { "\"currency\": \"\($0)\", " } ?? ""
        return Data("""
        { \(currencyField)"fruits": [ { "name": "mango" } ],
          "juices": [ { "name": "\(juice)", "price": \(price), "recipe": [ { "fruit": "mango", "amount": 1 } ] } ] }
        """.utf8)
    }

    @Test func aPricedMenuReadsItsCurrencyAndPrices() throws {
        let menu = try MenuFile.parse(Self.menu(currency: "USD", price: "450")).get()
        #expect(menu.currency?.code == "USD" && menu.currency?.minorDigits == 2 && menu.juices[0].price == 450)
        #expect(menu.currency?.format(12_345) == "$123.45" && Currency(code: "KRW")?.format(1_234_500) == "₩1,234,500")
        #expect(try MenuFile.parse(MenuFile.json(menu).data(using: .utf8)!).get() == menu, "round-trips")
    }

    /// A juice whose REPORT or MENU PRICES key would be another figure's is refused with prices.
    @Test(arguments: ["amount", "Currency", "minor_digits", "revenue", "revenue_mango", "by_kiwi"])
    func aJuiceNameThatWouldCollideWithAMoneyKeyIsRefused(_ name: String) {
        guard case .failure(let error) = MenuFile.parse(Self.menu(juice: name)) else {
            Issue.record("\(name) was taken")
            return
        }
        #expect(error.message.contains("cannot have a juice named \"\(name)\""), "\(error.message)")
        // Without prices there is no money key to collide with.
        let unpriced = Data("""
        { "fruits": [ { "name": "mango" } ], "juices": [ { "name": "\(name)", "recipe": [ { "fruit": "mango", "amount": 1 } ] } ] }
        """.utf8)
        #expect((try? MenuFile.parse(unpriced).get()) != nil)
    }

    @Test(arguments: ["5.5", "1e30", "-1", "100000001", "\"5000\""])
    func aPriceThatIsNoWholeNumberOfMinorUnitsIsRefusedNamingIt(_ price: String) {
        guard case .failure(let error) = MenuFile.parse(Self.menu(price: price)) else {
            Issue.record("\(price) was taken")
            return
        }
        #expect(error.message.contains("price") || error.message.contains(".juices[0]"), "\(error.message)")
    }

    @Test func pricesComeAllOrNone() {
        guard case .failure(let noCurrency) = MenuFile.parse(Self.menu(currency: nil)) else { Issue.record("taken"); return }
        #expect(noCurrency.message.contains("needs the menu's currency"))
        guard case .failure(let bad) = MenuFile.parse(Self.menu(currency: "krw")) else { Issue.record("taken"); return }
        #expect(bad.message.contains("ISO 4217"))
    }
}
