import JuiceCore

/// `juice-bench self-test`: checks of the pure parts (histogram accuracy, line parsing,
/// MENU parsing, option parsing, the fan-out verdict), runnable wherever the tool was copied,
/// with no network. `JuiceBenchTests` covers the same parts in more depth.
func runSelfTest() -> Int32 {
    var failures: [String] = []
    func expect(_ condition: Bool, _ what: String) {
        if !condition { failures.append(what) }
    }

    // Histogram: every bucket's midpoint is within 0.4% of any value in it, and percentiles
    // of a known distribution come out right.
    for value in [UInt64(0), 1, 255, 256, 257, 1000, 12_345, 999_999, 123_456_789, 1 << 40, UInt64.max / 3] {
        let index = LatencyHistogram.bucketIndex(of: value)
        let (low, width) = LatencyHistogram.bucketRange(of: index)
        expect(value >= low && value - low < width, "histogram: \(value) falls outside its bucket")
        let mid = Double(low) + Double(width / 2)
        expect(value < 256 ? mid == Double(value) : abs(mid - Double(value)) / Double(value) < 0.004,
               "histogram: bucket midpoint of \(value) is off by more than 0.4%")
    }
    expect(LatencyHistogram.bucketIndex(of: .max) < LatencyHistogram.bucketCount, "histogram: max value has no bucket")
    let histogram = LatencyHistogram()
    for value in 1...100_000 { histogram.record(UInt64(value) * 1000) }
    for (p, exact) in [(50.0, 50_000_000.0), (90, 90_000_000), (99, 99_000_000), (99.9, 99_900_000)] {
        let got = Double(histogram.value(atPercentile: p))
        expect(abs(got - exact) / exact < 0.01, "histogram: p\(p) = \(got), want ~\(exact)")
    }
    expect(histogram.value(atPercentile: 100) == 100_000_000, "histogram: p100 is not the max")

    // The /proc readers behind the server's CPU and switches per reply.
    let ticks = ProcText.cpuTicks(stat: "7 (a (b) c) S 1 7 7 0 -1 0 0 0 0 0 731 205 0 0 20 0 6 0 9 1 1")
    expect(ticks?.user == 731 && ticks?.system == 205, "/proc/PID/stat: utime and stime")
    let switches = ProcText.threadSwitches(status: "Name:\tw\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n")
    expect(switches?.voluntary == 12 && switches?.involuntary == 3, "/proc/PID/task/TID/status: context switches")
    expect(ProcText.listeningInodes(netTCP: "h\n 0: 0100007F:1EC6 00000000:0000 0A 0:0 0:0 0 0 0 99 1", port: 7878) == [99],
           "/proc/net/tcp: the listening socket of a port")

    // Line parsing.
    func withLine<T>(_ text: String, _ body: (UnsafeRawPointer, Int) -> T) -> T {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { body($0.baseAddress!, bytes.count) }
    }
    func seq(_ text: String) -> UInt64? { withLine(text) { WireReader.seq(in: UnsafeRawBufferPointer(start: $0, count: $1)) } }
    expect(seq("EVENT STOCK seq=42 mango=6 kiwi=8") == 42, "seq in event")
    expect(seq("OK ORDER mango-kiwi 1 seq=7 mango=9") == 7, "seq in reply")
    expect(seq("OK ORDER mango-kiwi 1 xseq=7") == nil, "seq needs a word start")
    expect(withLine("ERR OUT_OF_STOCK no mango") { isErrorReply($0, length: $1) }, "ERR is an error")
    expect(withLine("-ERR unknown command") { isErrorReply($0, length: $1) }, "- is an error")
    expect(!withLine(":1") { isErrorReply($0, length: $1) }, ":1 is not an error")
    expect(withLine("EVENT STOCK seq=1") { ByteString("EVENT").isPrefix(of: $0, length: $1) }, "prefix match")
    expect(!withLine("EV") { ByteString("EVENT").isPrefix(of: $0, length: $1) }, "short line is no prefix match")

    // A byte queue keeps its content across growth and reuse.
    var queue = ByteQueue(capacity: 4)
    withLine("hello world") { queue.append($0, count: $1) }
    queue.consume(6)
    withLine("!") { queue.append($0, count: $1) }
    expect(String(decoding: UnsafeRawBufferPointer(start: queue.readPointer, count: queue.count), as: UTF8.self) == "world!",
           "byte queue content")
    queue.deallocate()

    // MENU.
    let menu = WireReader.menu(line: "OK MENU strawberry=strawberry:16 mango-kiwi=mango:2+kiwi:1")
    expect(menu?.juices.count == 2, "menu has two juices")
    expect(menu.map { m in m.juices[1].recipe.map { "\(m.fruits[$0.fruit].name):\($0.amount)" } } == ["mango:2", "kiwi:1"], "menu recipe")
    expect(WireReader.menu(line: "ERR UNKNOWN what") == nil, "non-menu reply")

    // Options.
    if case .orders(let options)? = try? parseSubcommand(["orders", "--conns", "7", "--pipeline=16", "--json"]) {
        expect(options.connections == 7 && options.pipeline == 16 && options.common.json, "orders options")
        expect(LoadPlan.orders(options).requests == ["ORDER mango-kiwi"], "orders preset request")
    } else {
        failures.append("orders options do not parse")
    }
    do {
        _ = try parseSubcommand(["orders", "--bogus"])
        failures.append("unknown flag accepted")
    } catch {
        if case .usage = error {} else { failures.append("unknown flag is not a usage error") }
    }
    if case .raw(let options)? = try? parseSubcommand(["raw", "--request", "PING", "--watchers", "2", "--event-match", "message",
                                                    "--watch-setup", "SUBSCRIBE stock", "--watch-setup-lines", "6"]) {
        expect(LoadPlan.raw(options).isPacedFanout && options.plan.watchSetupLines == 6, "raw fan-out options")
    } else {
        failures.append("raw options do not parse")
    }
    expect((try? parseSubcommand(["raw", "--watchers", "2", "--request", "PING"])) == nil, "watchers without --event-match")
    expect((try? parseSubcommand(["idle", "--conns", "5"])) == nil, "idle without --pid")

    // Fan-out verdicts.
    let good = WatcherTally(events: 3, unattributedEvents: 0, firstSequence: 10, lastSequence: 12, sequenceFaults: 0)
    expect(checkFanout(expected: 3, watchers: [good, good], checkSequence: true, firstOrderSequence: 10,
                       lastOrderSequence: 12, orderSequenceFaults: 0) == .ok, "fan-out ok")
    var missed = good
    missed.events = 2
    expect(checkFanout(expected: 3, watchers: [good, missed], checkSequence: false, firstOrderSequence: nil,
                       lastOrderSequence: nil, orderSequenceFaults: 0) != .ok, "fan-out missed event")
    var gap = good
    gap.sequenceFaults = 1
    expect(checkFanout(expected: 3, watchers: [gap], checkSequence: true, firstOrderSequence: 10,
                       lastOrderSequence: 12, orderSequenceFaults: 0) != .ok, "fan-out seq gap")

    expect(formatFixed(3.14159, 2) == "3.14" && formatFixed(-0.05, 1) == "-0.1" && formatFixed(2, 0) == "2", "formatFixed")

    if failures.isEmpty {
        print("self-test: all checks passed")
        return 0
    }
    for failure in failures { print("self-test FAILED: \(failure)") }
    return 1
}
