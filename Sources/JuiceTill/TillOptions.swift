import JuiceScreen

/// Command-line options of juice-till.
public struct TillOptions: ClientOptions, Equatable {
    public var host = "127.0.0.1"
    public var port: UInt16 = 7878
    public var language: Language = .english
    /// Names the till in its order keys; by default one made up once and kept in the state file.
    public var tillID: String? = nil
    /// A pairing code from the manager: pair once, keep the credential, then sell as that till.
    public var pairingCode: String? = nil
    /// Where the till's credential is kept; nil: `TillCredentialFile.defaultPath`.
    public var credentialFile: String? = nil
    public var color = true
    public var showHelp = false

    public init() {}

    public static let usage = """
        usage: juice-till [--host H] [--port P] [--lang en|ko] [--till-id ID] [--pair CODE]
                          [--credential-file PATH] [--no-color]

        A till for the juice stand: sells through a juice-server, exactly once per sale even when
        the connection or the server drops (the sale waits and goes through when it is back).
          --host H        server address (default 127.0.0.1)
          --port P        server port (default 7878)
          --lang ko       show Korean names beside the names
          --till-id ID    this till's name in its order keys (letters, digits, . _ -; up to 40);
                          by default one is made up once and kept with the key counter in
                          $XDG_STATE_HOME/juice-till (or ~/.local/state/juice-till);
                          one id is one running till: a second with the same id exits (2)
          --pair CODE     pair this till with the code the manager made (the /tills page,
                          or TILLS NEW), once: the credential is saved, and from then on every
                          connection signs in with it (TILL); a server with a manager token
                          takes orders only from paired tills
          --credential-file PATH
                          where the credential is kept (default $XDG_CONFIG_HOME/juice-till/
                          credential, or ~/.config/juice-till/credential; mode 0600). Without
                          the file the till is not paired and orders as an anonymous client
          --no-color      no colours (also when NO_COLOR is set)
        On a terminal (full screen): 1-9 orders one of that juice, \(TillInput.pickWaitText) s after the key (the
        till waits that long for an x; Enter or space orders at once); a juice key, x, then a
        digit orders that many (3x2: two of juice 3); r restocks (asks the fruit, the amount and,
        if the server wants one, the manager token; JUICE_MANAGER_TOKEN is used when set and not
        empty); after an out-of-stock, r asks only the amount of the fruit that was short (with
        no token, the server's answer decides: the till asks for the token if it needs one);
        u undoes the last sale, within 10 minutes of it (it asks the reason: w wrong juice,
        c customer left, o other; any other key keeps the sale; later, only the manager can
        void a sale); q quits; with orders still unanswered it says how many and exits with status 1 (they may
        or may not have been made: check STATS or the stock).
        With a menu that has prices, the menu shows each juice's, a juice key its total before
        the count or the tap, each sale its amount, and a line what this till took since it
        started (its sales less its voids: the day's figures per till are in the manager's
        REPORT). Started while the server is down, it shows no menu and sells nothing until it
        answers.
        Piped (stdin not a terminal): one order a line, `mango-kiwi 2`, and one result a line
        (the amount, after " · ", only with prices):
          made mango-kiwi 2 seq=5 kiwi=8 mango=6 · ₩11,000
          out-of-stock mango-kiwi 2 needs mango=12 has mango=6
          error <what went wrong>
        and exit status 1 if any line was an error.
        A till the manager revoked sells nothing: each order says "this till was removed by the
        manager" and how to pair it again.
        """

    /// The manager token from the environment: JUICE_MANAGER_TOKEN, where an empty value means
    /// none, as it does for juice-server.
    public static func managerToken(environment: [String: String]) -> String? {
        environment["JUICE_MANAGER_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public typealias ParseError = OptionParseError

    /// Parses the arguments after the program name; `environment` is consulted for NO_COLOR.
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(ParseError) -> TillOptions {
        try parse(arguments, environment: environment) { options, name, value throws(ParseError) in
            switch name {
            case "--pair": options.pairingCode = try value(); return true
            case "--credential-file": options.credentialFile = try value(); return true
            case "--till-id": break
            default: return false
            }
            let id = try value()
            guard TillKeys.isValidID(id) else {
                throw ParseError(description: "--till-id must be 1-40 of A-Z a-z 0-9 . _ -, not \(id)")
            }
            options.tillID = id
            return true
        }
    }
}
