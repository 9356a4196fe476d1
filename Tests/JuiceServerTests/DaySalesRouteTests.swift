import Foundation
import Testing

/// `GET /reports/sales` on the built executable (issue 33): today's sales, newest first, for the
/// manager to void one from /reports. Each one's seq, juice, count, amount and who made it (a paired
/// till by number and name), and whether it was voided; 500 at a time, `before` pages back; the
/// manager's token needed like every report.
@Suite(.onOwnThreads) struct DaySalesRouteTests {
    static let token = "day-sales-token"
    static let bearer = "Authorization: Bearer \(token)"

    private static func sales(_ port: Int, _ query: String = "") throws -> [String: Any] {
        let reply = try HTTPClient.get(port: port, "/reports/sales" + query, headers: [bearer])
        #expect(reply.status == 200, "\(reply.statusLine) \(reply.text)")
        #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
        return try reply.json()
    }

    /// Each test's clock stands still: today's sales must not become yesterday's mid-test (at
    /// the shop's day start) between the sales and the list.
    @Test func todaysSalesNewestFirstWithWhoMadeThemAndTheirVoids() throws {
        let clock = try StillClock()
        let server = try ExecutableServer(["--in-memory"], environment: clock.environment.merging(["JUICE_MANAGER_TOKEN": Self.token]) { $1 })
        let port = server.httpPort
        #expect(try HTTPClient.get(port: port, "/reports/sales").status == 401)
        let empty = try Self.sales(port)
        #expect((empty["sales"] as? [Any])?.isEmpty == true && empty["more"] as? Bool == false)
        #expect((empty["currency"] as? [String: Any])?["code"] as? String == "KRW")

        // A till paired as "Front" sells one mango-kiwi; the manager sells two bananas and voids them.
        let code = try #require(try HTTPClient.post(port: port, "/tills/codes", json: #"{"name":"Front"}"#, headers: [Self.bearer]).json()["code"] as? String)
        let credential = try #require(try HTTPClient.post(port: port, "/tills/pair", json: "{\"code\":\"\(code)\"}").json()["credential"] as? String)
        let tillSale = try HTTPClient.post(port: port, "/orders", json: #"{"juice":"mango-kiwi"}"#, headers: ["Juice-Till: \(credential)"])
        #expect(tillSale.status == 200, "\(tillSale.text)")
        let managerSale = try HTTPClient.post(port: port, "/orders", json: #"{"juice":"banana","count":2}"#, headers: [Self.bearer])
        let managerSeq = try #require(try managerSale.json()["seq"] as? Int)
        let void = try HTTPClient.post(port: port, "/voids", json: "{\"sale\":\(managerSeq),\"reason\":\"other\"}", headers: [Self.bearer])
        let voidSeq = try #require(try void.json()["seq"] as? Int, "\(void.text)")

        let list = try #require(try Self.sales(port)["sales"] as? [[String: Any]])
        #expect(list.map { $0["sale"] as? Int } == [managerSeq, managerSeq - 1])
        let banana = list[0], mangoKiwi = list[1]
        #expect(banana["juice"] as? String == "banana" && banana["count"] as? Int == 2 && banana["amount"] as? Int == 8000)
        #expect(banana["by"] as? String == "manager" && banana["till"] is NSNull && banana["voided"] as? Int == voidSeq)
        #expect(mangoKiwi["by"] as? String == "till" && mangoKiwi["till"] as? Int == 1 && mangoKiwi["name"] as? String == "Front")
        #expect(mangoKiwi["amount"] as? Int == 5500 && mangoKiwi["voided"] is NSNull)
        #expect((mangoKiwi["clock"] as? String)?.range(of: #"^[0-2][0-9]:[0-5][0-9]$"#, options: .regularExpression) != nil)

        // `before` pages back; a seq that is not one is 400.
        let older = try #require(try Self.sales(port, "?before=\(managerSeq)")["sales"] as? [[String: Any]])
        #expect(older.map { $0["sale"] as? Int } == [managerSeq - 1])
        #expect(try HTTPClient.get(port: port, "/reports/sales?before=x", headers: [Self.bearer]).status == 400)
    }

    @Test func aPageHolds500AndSaysThereIsMore() throws {
        let clock = try StillClock()
        let server = try ExecutableServer(["--in-memory"], environment: clock.environment)
        let client = try server.peer()
        _ = client.nextLine()
        #expect(client.ask("SET banana 1000000").hasPrefix("OK"))
        for _ in 0..<501 { #expect(client.ask("ORDER banana 1").hasPrefix("OK ORDER banana 1 ")) }
        let first = try HTTPClient.get(port: server.httpPort, "/reports/sales").json()
        let page = try #require(first["sales"] as? [[String: Any]])
        #expect(page.count == 500 && first["more"] as? Bool == true)
        let last = try #require(page.last?["sale"] as? Int)
        let rest = try HTTPClient.get(port: server.httpPort, "/reports/sales?before=\(last)").json()
        #expect((rest["sales"] as? [Any])?.count == 1 && rest["more"] as? Bool == false)
    }
}
