/// How watchers read their events.
enum WatcherFraming {
    /// Event lines on the line protocol (`--event-match` prefixes).
    case lines
    /// `GET /events` on the HTTP port: a Server-Sent Events stream whose first message is the
    /// full state (where the stream starts) and every later message one change.
    case eventStream
}

/// How requests are sent and their replies read.
enum RequestFraming: Equatable {
    /// A request is a line; its reply is the next line not skipped (`replySkip`).
    case lines
    /// A request is a JSON body sent as `POST <path>` over HTTP/1.1 keep-alive (as a till
    /// does); its reply is the next HTTP response, an error unless its status is 200.
    case httpPost(path: String)
}

/// Everything the engine needs to run one load workload. `orders`, `fanout`, `events` and
/// `raw` all become a `LoadPlan`, so juice-server and other servers are measured by the same code.
struct LoadPlan {
    /// What to call the run in reports ("orders", "fanout", "events", "raw").
    var mode: String
    var common: CommonOptions
    var connections: Int
    var pipeline: Int
    var requests: [String]
    var setup: [String] = []
    var replySkip: [String] = []
    var greetingLines = 0
    var watchers = 0
    var watchSetup: [String] = []
    var watchSetupLines = 1
    var eventMatch: [String] = []
    var checkSequence = false
    var watcherFraming = WatcherFraming.lines
    /// Where watchers connect (the HTTP port for event streams); nil: where requests go.
    var watcherEndpoint: Endpoint?
    var requestFraming = RequestFraming.lines

    /// What the report calls the watchers.
    var watcherNoun: String { watcherFraming == .eventStream ? "streams" : "watchers" }

    /// One cashier, one order at a time: each event can be attributed to its order exactly.
    var isPacedFanout: Bool { watchers > 0 && connections == 1 && pipeline == 1 }
}

extension LoadPlan {
    /// juice-server speaks first (`EVENT HELLO ...`) and pushes `EVENT ...` lines between
    /// replies; cashiers turn events off so they only read their own replies.
    /// With `--http-port`: the same cashiers over HTTP, `POST /orders` with keep-alive to the
    /// HTTP port (no greeting, no events to turn off); the stock-up still uses `--port`.
    static func orders(_ options: OrdersOptions) -> LoadPlan {
        guard options.httpPort > 0 else {
            return LoadPlan(mode: "orders", common: options.common, connections: options.connections,
                            pipeline: options.pipeline, requests: ["ORDER \(options.juice)"],
                            setup: ["EVENTS OFF"], replySkip: ["EVENT"], greetingLines: 1)
        }
        var common = options.common
        common.endpoint.port = options.httpPort
        var plan = LoadPlan(mode: "http-orders", common: common, connections: options.connections,
                            pipeline: options.pipeline, requests: [JSON.object([("juice", .string(options.juice))]).text])
        plan.requestFraming = .httpPost(path: "/orders")
        return plan
    }

    static func fanout(_ options: FanoutOptions) -> LoadPlan {
        LoadPlan(mode: "fanout", common: options.common, connections: 1, pipeline: 1,
                 requests: ["ORDER \(options.juice)"], setup: ["EVENTS OFF"], replySkip: ["EVENT"],
                 greetingLines: 1, watchers: options.watchers, watchSetup: [], watchSetupLines: 0,
                 eventMatch: ["EVENT STOCK"], checkSequence: true)
    }

    /// `fanout` with browsers instead of displays: the same paced cashier, latency and seq
    /// check, the watchers being event streams on the HTTP port.
    static func events(_ options: EventsOptions) -> LoadPlan {
        var plan = LoadPlan.fanout(options.fanout)
        plan.mode = "events"
        plan.eventMatch = []
        plan.watcherFraming = .eventStream
        plan.watcherEndpoint = Endpoint(host: options.common.endpoint.host, port: options.httpPort)
        return plan
    }

    static func raw(_ options: RawOptions) -> LoadPlan { options.plan }
}
