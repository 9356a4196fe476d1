import Foundation
import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

@Suite("Metrics", .onOwnThreads)
struct MetricsTests {
    static func values(_ menu: Menu, journal: JournalCounts? = JournalCounts(syncs: 4, records: 9)) -> MetricsValues {
        var sales = sales(menu, journal: journal)
        sales.money = MoneyTotals(takings: 51_500, lostRevenue: 12_000, voids: 1, voidedAmount: 5_500)
        return MetricsValues(sales: sales, lineClients: 3, eventClients: 2, readOnly: true,
                             processStartSeconds: 1_763_899_200.25, residentBytes: 7_340_032)
    }

    @Test("the exposition text, line by line")
    func text() {
        let text = Metrics.text(Self.values(.standard))
        #expect(Metrics.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(text.hasPrefix("""
            # HELP juice_orders_served_total Orders served (applied), since the store was new.
            # TYPE juice_orders_served_total counter
            juice_orders_served_total 9
            # HELP juice_orders_refused_total
            """))
        for line in ["# TYPE juice_sold_total counter", #"juice_sold_total{juice="mango-kiwi"} 10"#,
                     #"juice_lost_total{juice="strawberry"} 1"#, #"juice_short_total{fruit="mango"} 6"#,
                     "# TYPE juice_fruit_stock gauge", #"juice_fruit_stock{fruit="strawberry"} 7"#, "juice_seq 12",
                     #"juice_clients{kind="line"} 3"#, #"juice_clients{kind="events"} 2"#, "juice_journal_syncs_total 4",
                     "juice_journal_records_total 9", "process_start_time_seconds 1763899200.25", "# TYPE juice_read_only gauge", "juice_read_only 1",
                     "process_resident_memory_bytes 7340032", "# TYPE juice_takings_minor_total counter",
                     #"juice_takings_minor_total{currency="KRW"} 51500"#, #"juice_lost_revenue_minor_total{currency="KRW"} 12000"#,
                     #"juice_voided_minor_total{currency="KRW"} 5500"#, "juice_voids_total 1"] {
            #expect(text.split(separator: "\n").contains(Substring(line)), "no line \(line)")
        }
        #expect(text.hasSuffix("\n") && !text.contains("\r"))
        // In memory: no journal families; unknown process figures: none either.
        var memory = Self.values(.standard, journal: nil)
        memory.readOnly = false
        memory.processStartSeconds = nil
        memory.residentBytes = nil
        let plain = Metrics.text(memory)
        #expect(!plain.contains("juice_journal") && !plain.contains("process_"))
        #expect(plain.split(separator: "\n").contains("juice_read_only 0"))
    }

    @Test("label values escape backslash, double quote and newline")
    func escaping() {
        #expect(Metrics.escapeLabelValue("a\\b\"c\nd딸기") == "a\\\\b\\\"c\\nd딸기")
        #expect(Metrics.escapeHelp("a\\b\"c\nd") == "a\\\\b\"c\\nd")
        let text = Metrics.text(Self.values(awkwardMenu))
        #expect(text.contains(#"juice_sold_total{juice="q\"\\mix"} 4"#))
        #expect(text.contains(#"juice_short_total{fruit="back\\slash"} 3"#))
    }

    @Test("Prometheus's parser (prometheus_client) reads every family and sample back",
          .requires(.prometheusClient),
          arguments: [false, true])
    func parsedByPrometheus(awkward: Bool) throws {
        try OutsideTool.prometheusClient.require()
        let menu = awkward ? awkwardMenu : Menu.standard
        let values = Self.values(menu)
        let families = try PrometheusParser.families(Metrics.text(values))
        var types: [String: String] = [:]
        var samples: [String: Double] = [:]
        for family in families {
            let name = try #require(family["name"] as? String)
            types[name] = family["type"] as? String
            #expect((family["help"] as? String)?.isEmpty == false, "\(name) has no HELP")
            for sample in try #require(family["samples"] as? [[Any]]) {
                let labels = try #require(sample[1] as? [String: String]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                samples[(sample[0] as! String) + labels.map { "|" + $0 }.joined()] = (sample[2] as! NSNumber).doubleValue
            }
        }
        // The client names a counter family without its _total; its samples keep it.
        // Money families only with prices (the awkward menu has none); the voids always.
        let money = awkward ? [:] : ["juice_takings_minor": "counter", "juice_lost_revenue_minor": "counter", "juice_voided_minor": "counter"]
        #expect(types == ["juice_orders_served": "counter", "juice_orders_refused": "counter", "juice_sold": "counter",
                          "juice_lost": "counter", "juice_short": "counter", "juice_fruit_stock": "gauge", "juice_seq": "gauge",
                          "juice_clients": "gauge", "juice_read_only": "gauge", "juice_journal_syncs": "counter", "juice_journal_records": "counter",
                          "process_start_time_seconds": "gauge", "process_resident_memory_bytes": "gauge", "juice_voids": "counter"]
                .merging(money) { a, _ in a })
        let sales = values.sales
        var expected: [String: Double] = [
            "juice_orders_served_total": 9, "juice_orders_refused_total": 3, "juice_seq": 12,
            "juice_clients|kind=line": 3, "juice_clients|kind=events": 2, "juice_read_only": 1, "juice_journal_syncs_total": 4,
            "juice_journal_records_total": 9, "process_start_time_seconds": 1_763_899_200.25, "process_resident_memory_bytes": 7_340_032,
            "juice_voids_total": 1,
        ]
        if !awkward {
            expected["juice_takings_minor_total|currency=KRW"] = 51_500
            expected["juice_lost_revenue_minor_total|currency=KRW"] = 12_000
            expected["juice_voided_minor_total|currency=KRW"] = 5_500
        }
        for (j, juice) in menu.juices.enumerated() {
            expected["juice_sold_total|juice=\(juice.name)"] = Double(sales.sold[j])
            expected["juice_lost_total|juice=\(juice.name)"] = Double(sales.lost[j])
        }
        for (i, fruit) in menu.fruits.enumerated() {
            expected["juice_short_total|fruit=\(fruit.name)"] = Double(sales.short[i])
            expected["juice_fruit_stock|fruit=\(fruit.name)"] = Double(sales.stock[i])
        }
        #expect(samples == expected)
    }
}
