import Foundation
import JuiceCore
import JuiceHTTP
import JuiceTestSupport
import Testing

/// One name per query parameter, over real sockets to the built executable (issue 34): a day is
/// `?date=` on every route (`hours.csv?date=` once gave today's file, as it took `?day=`), and a
/// parameter a route does not take, or one sent twice, is `400` naming it, as a repeated header
/// is, while the parameters the pages' own scripts and links use still work.
@Suite(.onOwnThreads) struct HTTPQueryParameterTests {
    /// Unix seconds of 2026-11-25 14:30 UTC, then the next day's.
    static let monday = Int64(BusinessCalendar.day(ofDate: "2026-11-25")!) * 86_400 + 14 * 3600 + 1800
    static let tuesday = monday + 86_400

    @Test func hoursCSVTakesDateAndGivesThatDay() throws {
        let s = try ClockedServer(["--timezone", "UTC"], at: Self.monday)
        #expect(try s.client.command("ORDER banana 2").hasPrefix("OK ORDER"))
        try s.at(Self.tuesday)
        #expect(try s.client.command("ORDER mango").hasPrefix("OK ORDER"))
        let http = s.server.httpPort

        let monday = try HTTPClient.get(port: http, "/reports/hours.csv?date=2026-11-25")
        #expect(monday.status == 200)
        #expect(monday.header("Content-Disposition") == "attachment; filename=\"juice-hours-2026-11-25.csv\"")
        #expect(monday.text.contains("\r\n2026-11-25,14:00,banana,2,0,"), "\(monday.text)")
        #expect(!monday.text.contains("2026-11-26"), "\(monday.text)")

        let today = try HTTPClient.get(port: http, "/reports/hours.csv")
        #expect(today.header("Content-Disposition") == "attachment; filename=\"juice-hours-2026-11-26.csv\"")
        #expect(today.text.contains("\r\n2026-11-26,14:00,mango,1,0,"), "\(today.text)")

        // The old name is refused, naming it, never read as "today".
        let old = try HTTPClient.get(port: http, "/reports/hours.csv?day=2026-11-25")
        #expect(old.status == 400)
        #expect(old.text == "unknown query parameter day: /reports/hours.csv takes ?date=\n", "\(old.text)")
        #expect(old.header("Content-Type") == "text/plain; charset=utf-8")
        s.server.stop()
    }

    @Test func aRepeatedParameterIs400NamingIt() throws {
        let server = try ExecutableServer(["--in-memory"])
        for target in ["/reports/hours.csv?date=2026-11-25&date=2026-11-26", "/reports/day?date=2026-11-25&date=2026-11-25",
                       "/reports?date=2026-11-25&lang=ko&date=2026-11-26", "/?lang=ko&lang=en"] {
            let reply = try HTTPClient.get(port: server.httpPort, target)
            let name = target.contains("date=") ? "date" : "lang"
            #expect(reply.status == 400, "\(target): \(reply.status)")
            #expect(reply.text == "repeated query parameter \(name): send it once\n", "\(target): \(reply.text)")
            let head = try HTTPClient.request("HEAD", port: server.httpPort, target)
            #expect(head.status == 400 && head.body.isEmpty, "HEAD \(target)")
        }
        let span = try HTTPClient.get(port: server.httpPort, "/reports/days.csv?from=2026-11-01&to=2026-11-02&from=2026-10-01")
        #expect(span.status == 400 && span.text.contains("repeated query parameter from"), "\(span.text)")
    }

    @Test func anUnknownParameterIs400OnPagesAndAPIRoutes() throws {
        let server = try ExecutableServer(["--in-memory"])
        let http = server.httpPort
        let refused: [(String, String)] = [
            ("/?utm_source=tv", "utm_source"), ("/dashboard?date=2026-11-25", "date"), ("/till?fruit=mango", "fruit"),
            ("/stock?lang=ko&juice=mango", "juice"), ("/reports?day=2026-11-25", "day"), ("/tills?x", "x"),
            ("/state?seq=4", "seq"), ("/events?since=3", "since"), ("/healthz?verbose=1", "verbose"),
            ("/openapi.json?format=yaml", "format"), ("/sales?date=2026-11-25", "date"), ("/metrics?x=1", "x"),
            ("/reports/days.csv?start=2026-11-01", "start"), ("/reports/sales?after=3", "after"),
            ("/till-sw.js?v=2", "v"), ("/reports/day?d%61te=2026-11-25", "d%61te"),
        ]
        for (target, name) in refused {
            let reply = try HTTPClient.get(port: http, target)
            #expect(reply.status == 400, "\(target): \(reply.status)")
            #expect(reply.text.hasPrefix("unknown query parameter \(name): "), "\(target): \(reply.text)")
        }
        #expect(try HTTPClient.get(port: http, "/state?seq=4").text == "unknown query parameter seq: /state takes no query parameters\n")
        #expect(try HTTPClient.get(port: http, "/?=ko").text.hasPrefix("unknown query parameter \"\" (a value with no name)"))

        // A write takes none: its refusal is the writes' JSON, BAD_REQUEST.
        let write = try HTTPClient.post(port: http, "/orders?juice=mango", json: #"{"juice":"mango","count":1}"#,
                                        headers: ["Idempotency-Key: query-1"])
        #expect(write.status == 400)
        let body = try write.json()
        #expect(body["error"] as? String == "BAD_REQUEST", "\(write.text)")
        #expect(body["message"] as? String == "unknown query parameter juice: /orders takes no query parameters", "\(write.text)")
        #expect(try HTTPClient.get(port: http, "/state").json()["seq"] as? Int == 0, "the refused order sold nothing")
    }

    /// What the pages' scripts and links send, and what the reports take, still answers 200; a
    /// refusal leaves the connection open for the next request.
    @Test func theKnownParametersStillWork() throws {
        let server = try ExecutableServer(["--in-memory"])
        let http = server.httpPort
        for target in ["/?lang=ko", "/index.html?lang=ko", "/dashboard?lang=ko", "/till?lang=ko", "/tills?lang=ko",
                       "/stock?lang=ko&fruit=mango", "/stock?fruit=mango", "/reports?date=2026-11-25&lang=ko", "/reports?",
                       "/reports/day?date=2026-11-25", "/reports/days.csv?from=2026-11-01&to=2026-11-30",
                       "/reports/tills.csv?from=2026-11-01&to=2026-11-30", "/reports/sales?before=10", "/state", "/?"] {
            #expect(try HTTPClient.get(port: http, target).status == 200, "\(target)")
        }
        let stream = try EventStreamClient(port: http, target: "/events?store=abc")
        defer { stream.close() }
        #expect(stream.status == 200)

        let connection = try LineClient.peer(port: http)
        defer { connection.close() }
        try connection.sendRaw(Array("GET /state?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let first = try HTTPClient.readReply(connection), second = try HTTPClient.readReply(connection)
        #expect(first.status == 400 && first.header("Connection") == "keep-alive")
        #expect(second.status == 200, "the connection stayed open for the next request")
    }
}
