/// Everything the engine needs to run one load workload. `orders`, `fanout` and `raw` all
/// become a `LoadPlan`, so juice-server and other servers are measured by the same code.
struct LoadPlan {
    /// What to call the run in reports ("orders", "fanout", "raw").
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

    /// One cashier, one order at a time: each event can be attributed to its order exactly.
    var isPacedFanout: Bool { watchers > 0 && connections == 1 && pipeline == 1 }
}

/// Holds N connections open to measure the server's memory per connection.
struct IdlePlan {
    var common: CommonOptions
    var connections: Int
    var pid: Int32
    var greetingLines: Int
    var probe: String?
    var replySkip: [String]
}

extension LoadPlan {
    /// juice-server speaks first (`EVENT HELLO ...`) and pushes `EVENT ...` lines between
    /// replies; cashiers turn events off so they only read their own replies.
    static func orders(_ options: OrdersOptions) -> LoadPlan {
        LoadPlan(mode: "orders", common: options.common, connections: options.connections,
                 pipeline: options.pipeline, requests: ["ORDER \(options.juice)"],
                 setup: ["EVENTS OFF"], replySkip: ["EVENT"], greetingLines: 1)
    }

    static func fanout(_ options: FanoutOptions) -> LoadPlan {
        LoadPlan(mode: "fanout", common: options.common, connections: 1, pipeline: 1,
                 requests: ["ORDER \(options.juice)"], setup: ["EVENTS OFF"], replySkip: ["EVENT"],
                 greetingLines: 1, watchers: options.watchers, watchSetup: [], watchSetupLines: 0,
                 eventMatch: ["EVENT STOCK"], checkSequence: true)
    }

    static func raw(_ options: RawOptions) -> LoadPlan {
        LoadPlan(mode: "raw", common: options.common, connections: options.connections,
                 pipeline: options.pipeline, requests: options.requests, setup: options.setup,
                 replySkip: options.replySkip, greetingLines: options.greetingLines,
                 watchers: options.watchers, watchSetup: options.watchSetup,
                 watchSetupLines: options.watchSetupLines, eventMatch: options.eventMatch,
                 checkSequence: options.checkSequence)
    }
}

extension IdlePlan {
    init(_ options: IdleOptions) {
        self.init(common: options.common, connections: options.connections, pid: options.pid,
                  greetingLines: options.greetingLines, probe: options.probe, replySkip: options.replySkip)
    }
}
