/// The server's side of a load run: what it spent over the measured window, or why that is
/// not known. Per reply, these move far less from run to run than throughput does on a shared
/// machine: a server slowed by a neighbour serves fewer replies but spends about the same on each.
enum ServerFigures {
    case measured(ServerUsage, foundBy: String)
    case missing(String)

    init(_ process: MeasuredServer, start: ServerSample?, end: ServerSample?) {
        switch process {
        case .unknown(let why):
            self = .missing(why)
        case .known(let pid, let how):
            guard let start else { self = .missing("the window never started (no reading of process \(pid))"); return }
            guard let end else { self = .missing("process \(pid) was gone at the window's end"); return }
            self = .measured(ServerUsage(pid: pid, from: start, to: end), foundBy: how)
        }
    }
}

/// Figures divided by a count (replies, events); nil when nothing was counted.
private func per(_ value: Double, _ count: Int) -> Double? {
    count > 0 ? value / Double(count) : nil
}

private func fixed(_ value: Double?, _ decimals: Int) -> String {
    value.map { formatFixed($0, decimals) } ?? "-"
}

/// How many thread groups the table lists (the JSON has them all).
private let tableThreadGroups = 6

func serverRows(_ result: LoadResult) -> [(String, String)] {
    guard case .measured(let usage, let foundBy) = result.server else {
        if case .missing(let why) = result.server { return [("server cpu", "unknown: \(why)")] }
        return []
    }
    var cpu = "\(fixed(per(usage.cpuSeconds * 1e6, result.replies), 2)) us/reply"
    if result.plan.watchers > 0 { cpu += ", \(fixed(per(usage.cpuSeconds * 1e6, result.events), 3)) us/event" }
    cpu += "   (user \(formatFixed(usage.userSeconds, 2)) s, sys \(formatFixed(usage.systemSeconds, 2)) s = "
        + "\(formatFixed(usage.cpuSeconds / max(result.measuredSeconds, 1e-9) * 100, 0))% of one core; pid \(usage.pid), \(foundBy))"
    var rows = [("server cpu", cpu)]
    let threadCount = usage.threadGroups.reduce(0) { $0 + $1.threads }
    rows.append(("server switch", "\(fixed(per(Double(usage.switches), result.replies), 3)) /reply   (voluntary \(usage.voluntarySwitches), "
                 + "involuntary \(usage.involuntarySwitches); \(threadCount) threads"
                 + (usage.threadsEnded > 0 ? ", \(usage.threadsEnded) ended in the window, their switches uncounted" : "") + ")"))
    for group in usage.threadGroups.prefix(tableThreadGroups) {
        let run = group.runNanos.flatMap { per(Double($0) / 1000, result.replies) }
        rows.append(("  thread", "\(group.name) x\(group.threads) (\(group.threadsThatRan) ran): \(fixed(run, 2)) us/reply, "
                     + "\(fixed(per(Double(group.switches), result.replies), 3)) switches/reply "
                     + "(voluntary \(group.voluntarySwitches), involuntary \(group.involuntarySwitches))"))
    }
    return rows
}

func serverJSON(_ result: LoadResult) -> [(String, JSON)] {
    guard case .measured(let usage, let foundBy) = result.server else {
        if case .missing(let why) = result.server { return [("server", .null), ("server_missing", .string(why))] }
        return [("server", .null)]
    }
    func number(_ value: Double?, _ decimals: Int) -> JSON { value.map { .number($0, decimals: decimals) } ?? .null }
    let threads: [JSON] = usage.threadGroups.map { group in
        .object([("name", .string(group.name)), ("count", .int(group.threads)), ("ran", .int(group.threadsThatRan)),
                 ("cpu_us_per_reply", number(group.runNanos.flatMap { per(Double($0) / 1000, result.replies) }, 3)),
                 ("switches_per_reply", number(per(Double(group.switches), result.replies), 4)),
                 ("voluntary_switches", .int(Int(group.voluntarySwitches))),
                 ("involuntary_switches", .int(Int(group.involuntarySwitches)))])
    }
    var members: [(String, JSON)] = [
        ("pid", .int(Int(usage.pid))), ("found_by", .string(foundBy)),
        ("user_s", .number(usage.userSeconds, decimals: 3)), ("sys_s", .number(usage.systemSeconds, decimals: 3)),
        ("cpu_us_per_reply", number(per(usage.cpuSeconds * 1e6, result.replies), 3)),
    ]
    if result.plan.watchers > 0 { members.append(("cpu_us_per_event", number(per(usage.cpuSeconds * 1e6, result.events), 4))) }
    members += [
        ("switches_per_reply", number(per(Double(usage.switches), result.replies), 4)),
        ("voluntary_switches", .int(Int(usage.voluntarySwitches))),
        ("involuntary_switches", .int(Int(usage.involuntarySwitches))),
        ("threads_started", .int(usage.threadsStarted)), ("threads_ended", .int(usage.threadsEnded)),
        ("threads", .array(threads)),
    ]
    return [("server", .object(members))]
}
