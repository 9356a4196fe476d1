import Foundation
import Glibc
import JuicePlatform

/// Readings from /proc for a process (Linux).
public enum ProcStat {
    /// A /proc file's whole text (the platform layer's reader, shared with juice-bench).
    public static func read(_ path: String) -> String? { Platform.readProcFile(path) }

    /// A "Vm..." field of /proc/<pid>/status in bytes (VmRSS, VmHWM), or nil.
    public static func status(_ pid: Int32, _ field: String) -> Int? {
        guard let text = read("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter { $0.isNumber }
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// User + system CPU time of the process, in seconds.
    public static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = read("/proc/\(pid)/stat"),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3 of the line; utime and stime are 14 and 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Whether the kernel keeps schedstat (/proc/<pid>/schedstat), which `runnableSeconds` reads.
    public static var keepsSchedstat: Bool { access("/proc/self/schedstat", F_OK) == 0 }

    /// Seconds the process's threads were runnable: on a CPU plus waiting in a run queue for
    /// one, summed over threads (/proc/<pid>/task/*/schedstat), or nil if a thread's cannot be
    /// read (or the kernel keeps none: `keepsSchedstat`). Unlike CPU time this does not depend
    /// on how busy the machine is: a thread that spins is runnable all the time whether or not
    /// it gets a core. A thread left out of a sum (its read failed, this process short of
    /// descriptors) would count its whole life in the next one, so a failed read is nil, not a
    /// smaller sum; a thread that ended between the listing and its read is skipped.
    public static func runnableSeconds(_ pid: Int32) -> Double? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var total = 0.0
        for task in tasks {
            let path = "/proc/\(pid)/task/\(task)"
            guard let text = read(path + "/schedstat") else {
                if access(path, F_OK) != 0 && errno == ENOENT { continue }  // ended
                return nil
            }
            let fields = text.split(separator: " ")
            guard fields.count >= 2, let onCPU = Double(fields[0]), let waiting = Double(fields[1]) else { return nil }
            total += (onCPU + waiting) / 1e9
        }
        return tasks.isEmpty ? nil : total
    }

    /// How many of the process's threads are runnable (state R: on a CPU, or waiting in a run
    /// queue for one), from /proc/<pid>/task/*/stat; nil if a thread's state cannot be read
    /// (nil is never "none"). A thread that ended between the listing and its read is skipped.
    public static func runnableThreads(_ pid: Int32) -> Int? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var runnable = 0
        for task in tasks {
            let path = "/proc/\(pid)/task/\(task)"
            guard let text = read(path + "/stat"), let close = text.lastIndex(of: ")") else {
                if access(path, F_OK) != 0 && errno == ENOENT { continue }  // ended
                return nil
            }
            if text[text.index(after: close)...].split(separator: " ").first == "R" { runnable += 1 }
        }
        return runnable
    }

    /// Open file descriptors of the process.
    public static func openFiles(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// How many of the process's descriptors are `target` (what /proc/<pid>/fd's links name,
    /// e.g. "anon_inode:[eventpoll]" for an epoll set); -1 if the process cannot be read.
    public static func openFiles(_ pid: Int32, named target: String) -> Int {
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return -1 }
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/" + $0)) == target }.count
    }

    /// The send and receive queues (bytes) of the established IPv4 TCP socket from `localPort` to
    /// 127.0.0.1:`remotePort`, from /proc/net/tcp: what that socket's owner has not yet had
    /// acknowledged, and what has arrived that its owner has not yet read.
    public static func tcpQueues(localPort: Int, remotePort: Int) -> (send: Int, receive: Int)? {
        guard let text = read("/proc/net/tcp") else { return nil }
        let local = String(format: ":%04X", localPort), remote = String(format: ":%04X", remotePort)
        for line in text.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue ...
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[1].hasSuffix(local), fields[2].hasSuffix(remote), fields[3] == "01" else { continue }
            let queues = fields[4].split(separator: ":")
            guard queues.count == 2, let tx = Int(queues[0], radix: 16), let rx = Int(queues[1], radix: 16) else { return nil }
            return (tx, rx)
        }
        return nil
    }
}

extension ProcStat {
    /// Bytes that this machine's established IPv4 TCP connections to any of `ports` have sent
    /// and not yet had acknowledged (their send queues, /proc/net/tcp): 0 once the receiving
    /// kernel holds every byte in its sockets, read or not; nil if the table cannot be read.
    public static func unacknowledgedBytes(toPorts ports: Set<Int>) -> Int? {
        guard let text = read("/proc/net/tcp") else { return nil }
        var total = 0
        for line in text.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue ...
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[3] == "01", let colon = fields[2].lastIndex(of: ":"),
                  let remote = Int(fields[2][fields[2].index(after: colon)...], radix: 16), ports.contains(remote),
                  let tx = fields[4].split(separator: ":").first.flatMap({ Int($0, radix: 16) }) else { continue }
            total += tx
        }
        return total
    }
}

/// "12.3 MiB", for messages about memory.
public func mebibytes(_ bytes: Int) -> String {
    String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}

/// Sets another process's RLIMIT_NOFILE (glibc's prlimit, looked up at run time).
public func setFileLimit(pid: Int32, soft: Int, hard: Int) -> Bool {
    typealias PrlimitFn = @convention(c) (pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prlimit") else { return false }
    let prlimitFn = unsafeBitCast(symbol, to: PrlimitFn.self)
    var limit = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
    return prlimitFn(pid, Int32(RLIMIT_NOFILE.rawValue), &limit, nil) == 0
}

