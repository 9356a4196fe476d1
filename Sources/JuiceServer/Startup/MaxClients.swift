import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP

/// Each client costs a file descriptor. Raise our soft limit toward what `--max-clients` needs
/// (up to the hard limit), and if that is not enough, lower max-clients rather than fail later.
public enum MaxClients {
    /// Descriptors kept for the listener, the journal, the data files and stdio.
    package static let reserve = 64

    public static func fit(_ maxClients: Int) -> Int {
        guard let limit = Platform.raiseOpenFileLimit(toward: UInt64(maxClients + reserve)) else { return maxClients }
        let possible = Int(clamping: limit.soft) - reserve
        if possible < maxClients {
            let lowered = max(1, possible)
            Log.warning("file descriptor limit is \(limit.soft) (hard \(limit.hard)); lowering max clients from \(maxClients) to \(lowered)")
            return lowered
        }
        return maxClients
    }
}
