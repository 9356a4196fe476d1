import JuicePlatform

/// The backup subcommands' command lines, each with its own flags:
///
///     juice-server backup [FILE | DIR] [--server HOST:PORT] [--manager-token-file PATH]
///     juice-server verify FILE
///     juice-server restore FILE --data DIR [--force]
///
/// Pure, as `CommandLineOptions`: a bad command line touches no file (a token file is read, as
/// the server reads its own).
enum BackupCommandLine {
    static let usage = """
        usage: juice-server backup [FILE | DIR] [--server HOST:PORT] [--manager-token-file PATH]
               juice-server verify FILE
               juice-server restore FILE --data DIR [--force]
        """

    static let commands: Set<String> = ["backup", "verify", "restore"]

    static func parse(_ command: String, _ arguments: [String], environment: [String: String] = [:]) -> Result<CommandLineOptions.Action, CommandLineOptions.UsageError> {
        func fail(_ message: String) -> Result<CommandLineOptions.Action, CommandLineOptions.UsageError> {
            .failure(CommandLineOptions.UsageError(description: "juice-server \(command): \(message)\n\(usage)"))
        }
        var scanner = CommandLineScanner(arguments)
        var file: String?
        var directory: String?
        var force = false
        var download = BackupCommand.Request()
        var tokenFile: String?
        do throws(CommandLineError) {
            while let item = try scanner.next() {
                switch item {
                case .positional(let argument):
                    guard file == nil else { return fail("one backup file at a time, not also '\(argument)'") }
                    file = argument
                case .flag("--server") where command == "backup":
                    let v = try scanner.value()
                    guard let (host, port) = Self.hostAndPort(v) else {
                        return fail("--server needs HOST:PORT, the server's HTTP port, such as 127.0.0.1:7879, not '\(v)'")
                    }
                    download.host = host
                    download.port = port
                case .flag("--manager-token-file") where command == "backup":
                    tokenFile = try scanner.value()
                case .flag("--data") where command == "restore":
                    let v = try scanner.value()
                    guard !v.isEmpty else { return fail("--data needs a directory") }
                    directory = v
                case .flag("--force") where command == "restore":
                    force = true
                case .flag(let flag):
                    return fail(CommandLineError.unknownFlag(flag).description)
                }
            }
        } catch {
            return fail(error.description)
        }
        if command == "backup" {
            switch ManagerToken.resolve(file: tokenFile, environment: environment) {
            case .success(let token): download.token = token
            case .failure(let error): return .failure(error)
            }
            guard file?.isEmpty != true else { return fail("an empty file name") }
            download.target = file
            return .success(.backup(download))
        }
        guard let file, !file.isEmpty else { return fail("which backup file?") }
        if command == "verify" { return .success(.verify(file: file)) }
        guard let directory else { return fail("--data DIR: the data directory to restore into") }
        return .success(.restore(file: file, directory: directory, force: force))
    }

    /// `127.0.0.1:7879`, `[::1]:7879`, `shop.local:7879`; a host alone means port 7879.
    static func hostAndPort(_ text: String) -> (String, UInt16)? {
        var host = Substring(text)
        var port: UInt16 = 7879
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = UInt16(rest.dropFirst()), p > 0 else { return nil }
                port = p
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard host.firstIndex(of: ":") == colon, let p = UInt16(host[host.index(after: colon)...]), p > 0 else { return nil }
            port = p
            host = host[..<colon]
        }
        return host.isEmpty ? nil : (String(host), port)
    }
}
