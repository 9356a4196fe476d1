import JuiceCore
import JuicePlatform
import JuiceLog

/// What `GET /metrics` reports beyond the store's figures: who is connected, and the process.
package struct MetricsValues: Sendable, Equatable {
    package var sales: SalesValues
    /// Clients of the line protocol (cashiers, displays, `nc`) and of the HTTP event stream.
    package var lineClients: Int
    package var eventClients: Int
    /// Whether the store refuses changes for lack of room on the disk (PROTOCOL.md, "Full disk").
    package var readOnly: Bool
    /// When the process started (unix seconds), and its resident memory; nil where unknown.
    package var processStartSeconds: Double?
    package var residentBytes: UInt64?

    package init(sales: SalesValues, lineClients: Int, eventClients: Int, readOnly: Bool = false,
                processStartSeconds: Double?, residentBytes: UInt64?) {
        self.sales = sales
        self.lineClients = lineClients
        self.eventClients = eventClients
        self.readOnly = readOnly
        self.processStartSeconds = processStartSeconds
        self.residentBytes = residentBytes
    }
}

/// The Prometheus text exposition format, version 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/): each family as `# HELP`,
/// `# TYPE`, then its samples, one per line, LF-terminated. Menu names are label values, escaped
/// as the format says (`\` `"` and newline), so any name a menu allows comes through.
package enum Metrics {
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    package static func text(_ values: MetricsValues) -> String {
        let sales = values.sales
        let menu = sales.menu
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: [(String, String)], value: String)]) {
            out += "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(type)\n"
            for sample in samples {
                out += name
                if !sample.labels.isEmpty {
                    out += "{" + sample.labels.map { "\($0.0)=\"\(escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
                }
                out += " \(sample.value)\n"
            }
        }
        func perJuice(_ list: [UInt64]) -> [(labels: [(String, String)], value: String)] {
            menu.juices.indices.map { ([("juice", menu.juices[$0].name)], String(list[$0])) }
        }
        func perFruit<N: BinaryInteger>(_ list: [N]) -> [(labels: [(String, String)], value: String)] {
            menu.fruits.indices.map { ([("fruit", menu.fruits[$0].name)], String(list[$0])) }
        }
        family("juice_orders_served_total", "counter", "Orders served (applied), since the store was new.",
               [([], String(sales.ordersServed))])
        family("juice_orders_refused_total", "counter", "Orders refused for stock (OUT_OF_STOCK), since the store was new.",
               [([], String(sales.ordersRefused))])
        family("juice_sold_total", "counter", "Juices sold, counting each order's count.", perJuice(sales.sold))
        family("juice_lost_total", "counter", "Juices refused for stock (lost sales), counting each order's count.",
               perJuice(sales.lost))
        family("juice_short_total", "counter", "Orders refused for stock in which this fruit was short.", perFruit(sales.short))
        // Money, in the currency's minor units (won; cents), labelled with the currency: only
        // with prices (a menu without them shows no money anywhere).
        if let currency = menu.currency {
            let label = [("currency", currency.code)]
            family("juice_takings_minor_total", "counter", "Money taken by sales, before voids, in the currency's minor units.",
                   [(label, String(sales.money.takings))])
            family("juice_lost_revenue_minor_total", "counter", "Money lost to orders refused for stock, in the currency's minor units.",
                   [(label, String(sales.money.lostRevenue))])
            family("juice_voided_minor_total", "counter", "Money given back by voided sales, in the currency's minor units.",
                   [(label, String(sales.money.voidedAmount))])
        }
        family("juice_voids_total", "counter", "Sales voided.", [([], String(sales.money.voids))])
        family("juice_fruit_stock", "gauge", "Fruit in stock.", perFruit(sales.stock))
        family("juice_seq", "gauge", "The store's change counter: applied changes since the store was new.",
               [([], String(sales.seq))])
        family("juice_clients", "gauge", "Connected clients: line protocol (TCP) and HTTP event streams.",
               [([("kind", "line")], String(values.lineClients)), ([("kind", "events")], String(values.eventClients))])
        family("juice_read_only", "gauge", "1 while the store refuses changes for lack of room on the disk (ERR READ_ONLY), else 0.",
               [([], values.readOnly ? "1" : "0")])
        if let journal = sales.journal {
            family("juice_journal_syncs_total", "counter", "Journal writes, each made durable with one fdatasync.",
                   [([], String(journal.syncs))])
            family("juice_journal_records_total", "counter", "Journal records written (records / syncs is the group size).",
                   [([], String(journal.records))])
        }
        if let start = values.processStartSeconds {
            family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
                   [([], String(start))])
        }
        if let resident = values.residentBytes {
            family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", [([], String(resident))])
        }
        return out
    }

    /// A label value: backslash, double quote and line feed escaped, as the format requires.
    package static func escapeLabelValue(_ s: String) -> String { escape(s, quote: true) }

    /// HELP text: backslash and line feed escaped (a quote stays as it is).
    package static func escapeHelp(_ s: String) -> String { escape(s, quote: false) }

    private static func escape(_ s: String, quote: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"" where quote: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
