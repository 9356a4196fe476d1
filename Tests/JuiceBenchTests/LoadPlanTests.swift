import Testing
@testable import juice_bench

/// The presets: `orders` and `fanout` are `raw` plans with juice-server's wire filled in.
@Suite(.onOwnThreads) struct LoadPlanTests {
    @Test func ordersIsPipelinedCashiersWithEventsOff() {
        var options = OrdersOptions()
        options.connections = 7
        options.pipeline = 4
        options.juice = "banana"
        let plan = LoadPlan.orders(options)
        #expect(plan.mode == "orders")
        #expect(plan.connections == 7 && plan.pipeline == 4)
        #expect(plan.requests == ["ORDER banana"])
        #expect(plan.setup == ["EVENTS OFF"] && plan.replySkip == ["EVENT"] && plan.greetingLines == 1)
        #expect(plan.watchers == 0 && !plan.isPacedFanout && !plan.checkSequence)
    }

    @Test func ordersWithAnHTTPPortPostsJSONOverKeepAlive() throws {
        let command = try parseSubcommand(["orders", "--port", "9000", "--http-port", "8080", "--juice", "banana", "--conns", "3"])
        guard case .orders(let options) = command else { Issue.record("not orders: \(command)"); return }
        #expect(options.common.endpoint.port == 9000 && options.httpPort == 8080)
        let plan = LoadPlan.orders(options)
        #expect(plan.mode == "http-orders" && plan.requestFraming == .httpPost(path: "/orders"))
        #expect(plan.common.endpoint.description == "127.0.0.1:8080" && plan.connections == 3 && plan.pipeline == 1)
        #expect(plan.requests == [#"{"juice":"banana"}"#])
        // No greeting, no setup lines: HTTP has neither.
        #expect(plan.setup.isEmpty && plan.replySkip.isEmpty && plan.greetingLines == 0)
        let wire = WireSettings(plan)
        #expect(wire.httpRequests)
        #expect(wire.requests.map { String(decoding: UnsafeRawBufferPointer(start: $0.base, count: $0.count), as: UTF8.self) }
                == [httpPost(path: "/orders", body: #"{"juice":"banana"}"#, host: plan.common.endpoint)])
        #expect(!WireSettings(LoadPlan.orders(OrdersOptions())).httpRequests, "without --http-port: ORDER lines")
        #expect(throws: BenchError.self) { try parseSubcommand(["orders", "--http-port", "0"]) }
    }

    @Test func fanoutIsOneCashierOneOrderAtATimeWithSequenceChecks() {
        var options = FanoutOptions()
        options.watchers = 12
        let plan = LoadPlan.fanout(options)
        #expect(plan.mode == "fanout")
        #expect(plan.connections == 1 && plan.pipeline == 1 && plan.watchers == 12)
        #expect(plan.requests == ["ORDER mango-kiwi"])
        #expect(plan.eventMatch == ["EVENT STOCK"] && plan.checkSequence)
        #expect(plan.watchSetup.isEmpty && plan.watchSetupLines == 0)
        #expect(plan.isPacedFanout)
    }

    @Test func eventsIsFanoutWithEventStreamsOnTheHTTPPort() {
        var options = EventsOptions()
        options.fanout.watchers = 12
        options.httpPort = 8080
        options.common.endpoint.port = 9000
        let plan = LoadPlan.events(options)
        #expect(plan.mode == "events" && plan.watcherNoun == "streams")
        #expect(plan.connections == 1 && plan.pipeline == 1 && plan.watchers == 12 && plan.isPacedFanout)
        #expect(plan.requests == ["ORDER mango-kiwi"] && plan.setup == ["EVENTS OFF"] && plan.checkSequence)
        #expect(plan.watcherFraming == .eventStream && plan.eventMatch.isEmpty)
        #expect(plan.common.endpoint.description == "127.0.0.1:9000" && plan.watcherEndpoint?.description == "127.0.0.1:8080")
        // Watchers send the browser's request and wait for one message instead of a greeting.
        let wire = WireSettings(plan)
        #expect(wire.watcherFraming == .eventStream && wire.watchSetupReplyLines == 0)
        #expect(wire.watchSetup.map { String(decoding: UnsafeRawBufferPointer(start: $0.base, count: $0.count), as: UTF8.self) }
                == ["GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"])
        #expect(LoadPlan.fanout(FanoutOptions()).watcherFraming == .lines && LoadPlan.fanout(FanoutOptions()).watcherEndpoint == nil)
    }

    @Test func rawCarriesEveryOption() throws {
        let command = try parseSubcommand(["raw", "--request", "PING", "--request", "INCR x", "--setup", "SELECT 1",
                                        "--reply-skip", "+", "--greeting-lines", "2", "--conns", "3", "--pipeline", "8",
                                        "--watchers", "2", "--watch-setup", "SUBSCRIBE s", "--watch-setup-lines", "6",
                                        "--event-match", "message", "--check-seq"])
        guard case .raw(let options) = command else { Issue.record("not raw: \(command)"); return }
        let plan = LoadPlan.raw(options)
        #expect(plan.mode == "raw")
        #expect(plan.requests == ["PING", "INCR x"] && plan.setup == ["SELECT 1"] && plan.replySkip == ["+"])
        #expect(plan.greetingLines == 2 && plan.connections == 3 && plan.pipeline == 8)
        #expect(plan.watchers == 2 && plan.watchSetup == ["SUBSCRIBE s"] && plan.watchSetupLines == 6)
        #expect(plan.eventMatch == ["message"] && plan.checkSequence)
        // Pipelined or several cashiers: events cannot be attributed one by one.
        #expect(!plan.isPacedFanout)
    }

    @Test func idleTakesItsOptions() throws {
        guard case .idle(let options) = try parseSubcommand(["idle", "--pid", "42", "--conns", "9", "--greeting-lines", "0",
                                                          "--probe", "PING", "--reply-skip", "+"]) else {
            Issue.record("not idle")
            return
        }
        #expect(options.pid == 42 && options.connections == 9 && options.greetingLines == 0)
        #expect(options.probe == "PING" && options.replySkip == ["+"])
        #expect(options.common.duration == 2)  // idle holds for 2 s by default, not the load default of 5
    }
}
