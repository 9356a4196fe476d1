import Foundation
import JuicePlatform

/// One thread's counters at one moment.
struct ThreadCounters: Equatable {
    var name: String
    var voluntary: UInt64
    var involuntary: UInt64
    /// Nanoseconds run (schedstat); nil where the kernel does not keep it.
    var runNanos: UInt64?
}

/// The server process's counters at one moment, from /proc: its CPU time (every thread, the
/// ended ones included) and each living thread's context switches.
struct ServerSample {
    var userTicks: UInt64
    var systemTicks: UInt64
    var threads: [Int32: ThreadCounters]

    /// Reads process `pid`; nil if it is gone or there is no /proc (macOS).
    static func read(pid: Int32) -> ServerSample? {
        guard let stat = Platform.readProcFile("/proc/\(pid)/stat"), let ticks = ProcText.cpuTicks(stat: stat),
              let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var threads: [Int32: ThreadCounters] = [:]
        for task in tasks {
            // A thread that ends between the listing and the read is simply not in this sample.
            guard let tid = Int32(task), let status = Platform.readProcFile("/proc/\(pid)/task/\(task)/status"),
                  let switches = ProcText.threadSwitches(status: status) else { continue }
            let run = Platform.readProcFile("/proc/\(pid)/task/\(task)/schedstat").flatMap(ProcText.runNanos)
            threads[tid] = ThreadCounters(name: switches.name, voluntary: switches.voluntary,
                                          involuntary: switches.involuntary, runNanos: run)
        }
        return ServerSample(userTicks: ticks.user, systemTicks: ticks.system, threads: threads)
    }

    /// /proc/PID/stat counts CPU time in these.
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// What the server spent over the measured window: the difference of two samples.
///
/// CPU time is the process's utime + stime (/proc/PID/stat) rather than the sum of each
/// thread's schedstat: that sum would miss a thread that ran and ended inside the window
/// (Dispatch's workers come and go), while the process's figure keeps them. Its unit, a clock
/// tick (10 ms), is under 1% of what a server uses in a window of a few seconds.
/// Context switches have no process-wide counter in /proc (/proc/PID/status counts the main
/// thread only), so they are summed over threads: a thread that ended inside the window takes
/// its switches with it; `threadsEnded` says how many did.
struct ServerUsage {
    var pid: Int32
    var userSeconds: Double
    var systemSeconds: Double
    var voluntarySwitches: UInt64
    var involuntarySwitches: UInt64
    /// Per thread name (Dispatch's workers share one), busiest first.
    var threadGroups: [ThreadGroupUsage]
    /// Threads alive at the end that were not at the start, and the other way round.
    var threadsStarted: Int
    var threadsEnded: Int

    var cpuSeconds: Double { userSeconds + systemSeconds }
    var switches: UInt64 { voluntarySwitches + involuntarySwitches }

    init(pid: Int32, from start: ServerSample, to end: ServerSample, ticksPerSecond: Double = ServerSample.ticksPerSecond) {
        self.pid = pid
        userSeconds = Double(end.userTicks &- start.userTicks) / ticksPerSecond
        systemSeconds = Double(end.systemTicks &- start.systemTicks) / ticksPerSecond
        var groups: [String: ThreadGroupUsage] = [:]
        var voluntary: UInt64 = 0, involuntary: UInt64 = 0
        for (tid, last) in end.threads {
            // A thread born inside the window did all its switching inside it.
            let first = start.threads[tid] ?? ThreadCounters(name: last.name, voluntary: 0, involuntary: 0, runNanos: 0)
            let ran = last.runNanos.map { $0 != first.runNanos } ?? false
                || last.voluntary != first.voluntary || last.involuntary != first.involuntary
            let group = ThreadGroupUsage(name: last.name, threads: 1, threadsThatRan: ran ? 1 : 0, voluntarySwitches: last.voluntary &- first.voluntary,
                                         involuntarySwitches: last.involuntary &- first.involuntary,
                                         runNanos: last.runNanos.flatMap { l in first.runNanos.map { l &- $0 } })
            voluntary += group.voluntarySwitches
            involuntary += group.involuntarySwitches
            groups[last.name, default: ThreadGroupUsage(name: last.name)].add(group)
        }
        voluntarySwitches = voluntary
        involuntarySwitches = involuntary
        threadGroups = groups.values.sorted { ($0.runNanos ?? 0, $0.switches, $1.name) > ($1.runNanos ?? 0, $1.switches, $0.name) }
        threadsStarted = end.threads.keys.filter { start.threads[$0] == nil }.count
        threadsEnded = start.threads.keys.filter { end.threads[$0] == nil }.count
    }
}

/// The threads of one name over the window.
struct ThreadGroupUsage {
    var name: String
    var threads = 0
    /// Of `threads`, those that ran or switched inside the window.
    var threadsThatRan = 0
    var voluntarySwitches: UInt64 = 0
    var involuntarySwitches: UInt64 = 0
    var runNanos: UInt64? = 0

    var switches: UInt64 { voluntarySwitches + involuntarySwitches }

    mutating func add(_ other: ThreadGroupUsage) {
        threads += other.threads
        threadsThatRan += other.threadsThatRan
        voluntarySwitches += other.voluntarySwitches
        involuntarySwitches += other.involuntarySwitches
        runNanos = runNanos.flatMap { mine in other.runNanos.map { mine + $0 } }
    }
}
