import Glibc

/// Each client costs a file descriptor. Raise our soft limit toward what `--max-clients` needs
/// (up to the hard limit), and if that is not enough, lower max-clients rather than fail later.
public enum FileLimit {
    /// Descriptors kept for the listener, the journal, the data files and stdio.
    static let reserve = 64

    public static func fit(maxClients: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return maxClients }
        let wanted = rlim_t(maxClients + reserve)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = min(wanted, limit.rlim_max)
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let possible = Int(limit.rlim_cur) - reserve
        if possible < maxClients {
            let lowered = max(1, possible)
            Log.warning("file descriptor limit is \(limit.rlim_cur) (hard \(limit.rlim_max)); lowering max clients from \(maxClients) to \(lowered)")
            return lowered
        }
        return maxClients
    }
}
