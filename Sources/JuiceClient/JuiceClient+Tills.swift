import JuiceCore

/// A till the manager paired: its number and name on the server, and the credential that signs
/// it in. Store `credential` (a keychain, a file only the app reads) and give it back as
/// ``JuiceClient/Configuration/tillCredential`` on the next start.
public struct PairedTill: Sendable, Equatable, Codable, CustomStringConvertible {
    public var till: Int
    public var name: String
    public var credential: String

    public init(till: Int, name: String, credential: String) {
        (self.till, self.name, self.credential) = (till, name, credential)
    }

    /// `till 1 (Front till)`: never the credential, which a log must not hold.
    public var description: String { "till \(till) (\(name))" }
}

extension JuiceClient {
    /// The most orders one client has sent and not yet had answered; more wait, unsent, for a
    /// place. The server keeps each paired till's newest 1000 keys (`Limits.keysPerTill`), and a
    /// till may only re-send a key among them: with at most 256 out, every key this client
    /// re-sends after a lost connection is among the till's newest 256, far inside the 1000.
    public static let maxUnansweredOrders = 256

    /// Pairs this client as a till with the code the manager made (`TILLS NEW` or the `/tills`
    /// page; `K7QF-M2XP`, dash and case optional). The connection is the till from then on, and
    /// every later connection of this client signs in with the new credential. Store the
    /// returned credential: the code is single-use and expires in minutes.
    ///
    /// Throws `.badArgument` for text that cannot be a code (nothing is sent), the server's
    /// refusal for a wrong, used or expired code, and `.changeInDoubt` when the connection was
    /// lost before the answer (the code may have been used: make a new one if it is refused).
    public func pair(code: String) async throws -> PairedTill {
        guard let normalized = PairingCode.normalized(code) else {
            throw JuiceError.badArgument("a pairing code is 8 letters and digits, as K7QF-M2XP; nothing was sent")
        }
        // Not re-sent after a lost connection, as a RESTOCK is not: the code is used up once.
        let reply = try await call("PAIR \(normalized)", kind: .change)
        guard case .ok("PAIR", let fields) = reply else { throw Self.failure(reply) }
        guard let paired = Self.pairedTill(fields) else {
            throw JuiceError.unexpectedReply("OK PAIR " + fields.joined(separator: " "))
        }
        let engine = engine
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            engine.queue.async {
                engine.paired(credential: paired.credential)
                done.resume()
            }
        }
        return paired
    }

    /// `till=1 credential=1-… name=Front till`: the name is the rest of the line.
    static func pairedTill(_ fields: [Substring]) -> PairedTill? {
        guard fields.count >= 3, fields[0].hasPrefix("till="), let till = Int(fields[0].dropFirst(5)),
              fields[1].hasPrefix("credential="), fields[2].hasPrefix("name=") else { return nil }
        let name = ([fields[2].dropFirst(5)] + fields[3...]).joined(separator: " ")
        return PairedTill(till: till, name: name, credential: String(fields[1].dropFirst(11)))
    }
}
