import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// The line protocol's words for PAIR and TILLS (PROTOCOL.md, "Tills"). A till's name may hold
/// spaces, so it is always the last field (of the line, or of its `|` section).
extension LineCodec {
    package func appendTills(_ outcome: TillsOutcome, presence: TillPresence?, to out: inout [UInt8]) {
        let line: String
        switch outcome {
        case .paired(let info, let credential):
            line = "OK PAIR till=\(info.till.id) credential=\(credential) name=\(info.till.name)"
        case .code(let code, let name, let expiresIn):
            line = "OK TILLS NEW code=\(code) expires_in=\(expiresIn)" + (name.map { " name=" + $0 } ?? "")
        case .list(let infos):
            line = "OK TILLS \(infos.count)" + infos.map { " | " + Self.describe($0, presence: presence) }.joined()
        case .renamed(let info):
            line = "OK TILLS RENAME " + Self.describe(info, presence: presence)
        case .revoked(let info):
            line = "OK TILLS REVOKE " + Self.describe(info, presence: presence)
        case .refused(let error), .noSuchTill(let error):
            error.append(to: &out)
            return
        }
        out.append(line)
        out.appendLineEnd()
    }

    /// `till=1 paired=<time> [revoked=<time>] last_seen=<time>|- connected=yes|no orders_today=5 juices_today=7 name=Front till`
    package static func describe(_ info: TillInfo, presence: TillPresence?) -> String {
        let till = info.till
        var words = ["till=\(till.id)", "paired=\(UTCTime.text(till.pairedAt))"]
        if let revoked = till.revokedAt { words.append("revoked=\(UTCTime.text(revoked))") }
        words.append("last_seen=" + (presence?.lastSeen(till.id).map(UTCTime.text) ?? "-"))
        words.append("connected=" + ((presence?.isConnected(till.id) ?? false) ? "yes" : "no"))
        words.append("orders_today=\(info.ordersToday)")
        words.append("juices_today=\(info.juicesToday)")
        words.append("name=" + till.name)
        return words.joined(separator: " ")
    }
}

