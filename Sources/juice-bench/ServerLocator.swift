import Foundation
import JuicePlatform

/// Whose CPU time and context switches a run reports: the process given by `--server-pid`,
/// else the one process that holds the listening socket of the target port (found through
/// /proc/net/tcp and every process's /proc/PID/fd), so any local server is measured without
/// a flag. When neither works the run still measures throughput and says why the server's
/// figures are missing.
enum MeasuredServer {
    case known(pid: Int32, how: String)
    case unknown(why: String)

    var pid: Int32? {
        if case .known(let pid, _) = self { return pid }
        return nil
    }

    static func find(_ common: CommonOptions) throws(BenchError) -> MeasuredServer {
        if let pid = common.serverPid {
            guard ServerSample.read(pid: pid) != nil else {
                throw BenchError.fatal("cannot read /proc/\(pid)/stat and its threads: is \(pid) the server's process id (Linux only)?")
            }
            return .known(pid: pid, how: "--server-pid")
        }
        guard isLoopback(common.endpoint.host) else {
            return .unknown(why: "\(common.endpoint.host) is not this machine's loopback; give --server-pid")
        }
        return ServerLocator.process(listeningOn: common.endpoint.port)
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1"
    }
}

enum ServerLocator {
    static func process(listeningOn port: Int) -> MeasuredServer {
        var inodes = Set<UInt64>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            if let text = Platform.readProcFile(table) { inodes.formUnion(ProcText.listeningInodes(netTCP: text, port: port)) }
        }
        guard !inodes.isEmpty else { return .unknown(why: "no listening socket for port \(port) in /proc/net/tcp; give --server-pid") }
        let holders = pids(holdingAnyOf: inodes)
        guard holders.count == 1, let pid = holders.first else {
            return .unknown(why: holders.isEmpty
                            ? "no readable process holds port \(port)'s listening socket (run as its user or root, or give --server-pid)"
                            : "several processes hold port \(port)'s listening socket (\(holders.sorted())); give --server-pid")
        }
        return .known(pid: pid, how: "listening on port \(port)")
    }

    /// Every process with a descriptor on one of the sockets. Processes we may not look into
    /// (another user's, without root) are skipped.
    private static func pids(holdingAnyOf inodes: Set<UInt64>) -> Set<Int32> {
        let files = FileManager.default
        var holders = Set<Int32>()
        for entry in (try? files.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let fds = try? files.contentsOfDirectory(atPath: "/proc/\(entry)/fd") else { continue }
            for fd in fds {
                if let link = try? files.destinationOfSymbolicLink(atPath: "/proc/\(entry)/fd/\(fd)"),
                   let inode = ProcText.socketInode(link: link), inodes.contains(inode) {
                    holders.insert(pid)
                    break
                }
            }
        }
        return holders
    }
}
