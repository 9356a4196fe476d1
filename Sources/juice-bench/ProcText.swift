/// Readers of the /proc texts the server figures come from. Pure (text in, numbers out), so
/// they are checked on sample text by JuiceBenchTests and `juice-bench self-test`.
enum ProcText {
    /// utime and stime (fields 14 and 15, in clock ticks) of a /proc/PID/stat line. For the
    /// process (not one of its tasks) the kernel sums every thread, those that already ended
    /// included.
    static func cpuTicks(stat: String) -> (user: UInt64, system: UInt64)? {
        // The command name (field 2) is in parentheses and may hold spaces and ')': the
        // fields after the last ')' start with field 3, the state.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return (user, system)
    }

    /// A thread's name and its context switches, from /proc/PID/task/TID/status: voluntary (it
    /// blocked: waited for input, a lock, a disk) and involuntary (the scheduler took the CPU away).
    static func threadSwitches(status: String) -> (name: String, voluntary: UInt64, involuntary: UInt64)? {
        var name: String?, voluntary: UInt64?, involuntary: UInt64?
        for line in status.split(separator: "\n") {
            if line.hasPrefix("Name:") {
                name = String(line.dropFirst("Name:".count).drop(while: { $0 == " " || $0 == "\t" }))
            } else if line.hasPrefix("voluntary_ctxt_switches:") {
                voluntary = number(after: "voluntary_ctxt_switches:", in: line)
            } else if line.hasPrefix("nonvoluntary_ctxt_switches:") {
                involuntary = number(after: "nonvoluntary_ctxt_switches:", in: line)
            }
        }
        guard let name, let voluntary, let involuntary else { return nil }
        return (name, voluntary, involuntary)
    }

    /// Nanoseconds a thread has run, the first field of /proc/PID/task/TID/schedstat
    /// ("run-ns wait-ns timeslices").
    static func runNanos(schedstat: String) -> UInt64? {
        schedstat.split(whereSeparator: { $0 == " " || $0 == "\n" }).first.flatMap { UInt64($0) }
    }

    /// The socket inodes listening on `port` in /proc/net/tcp or /proc/net/tcp6 text, on
    /// a wildcard or loopback address (a server another host could only reach elsewhere is
    /// not the one a loopback run measures).
    static func listeningInodes(netTCP: String, port: Int) -> [UInt64] {
        var inodes: [UInt64] = []
        for line in netTCP.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[3] == "0A" else { continue }
            let local = fields[1].split(separator: ":")
            guard local.count == 2, Int(local[1], radix: 16) == port, isWildcardOrLoopback(local[0]),
                  let inode = UInt64(fields[9]), inode != 0 else { continue }
            inodes.append(inode)
        }
        return inodes
    }

    /// /proc/net/tcp writes an address as hex of its 32-bit words as they lie in memory:
    /// 127.0.0.1 is 0100007F on a little-endian machine; IPv6 ::1 is four words, the last 01000000.
    private static func isWildcardOrLoopback(_ hex: Substring) -> Bool {
        if hex.allSatisfy({ $0 == "0" }) { return true }
        #if _endian(little)
        let (loopback4, loopback6, mapped) = ({ (w: Substring) in w.hasSuffix("7F") }, "01000000", "FFFF0000")
        #else
        let (loopback4, loopback6, mapped) = ({ (w: Substring) in w.hasPrefix("7F") }, "00000001", "0000FFFF")
        #endif
        if hex.count == 8 { return loopback4(hex) }
        guard hex.count == 32, hex.hasPrefix("0000000000000000") else { return false }
        let third = hex.dropFirst(16).prefix(8), fourth = hex.suffix(8)
        // ::1, or an IPv4 loopback address mapped into IPv6 (::ffff:127.x.y.z).
        return (third == "00000000" && fourth == loopback6) || (third == mapped && loopback4(fourth))
    }

    /// The inode of a "socket:[12345]" descriptor link, nil for anything else.
    static func socketInode(link: String) -> UInt64? {
        guard link.hasPrefix("socket:["), link.hasSuffix("]") else { return nil }
        return UInt64(link.dropFirst("socket:[".count).dropLast())
    }

    private static func number(after prefix: String, in line: Substring) -> UInt64? {
        line.dropFirst(prefix.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { UInt64($0) }
    }
}
