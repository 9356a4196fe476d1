import JuicePlatform

/// The backup subcommands' command lines, each with its own flags:
///
///     juice-server verify FILE
///     juice-server restore FILE --data DIR [--force]
///
/// Pure, as `CommandLineOptions`: a bad command line touches no file.
enum BackupCommandLine {
    static let usage = """
        usage: juice-server verify FILE
               juice-server restore FILE --data DIR [--force]
        """

    static func parse(_ command: String, _ arguments: [String]) -> Result<CommandLineOptions.Action, CommandLineOptions.UsageError> {
        func fail(_ message: String) -> Result<CommandLineOptions.Action, CommandLineOptions.UsageError> {
            .failure(CommandLineOptions.UsageError(description: "juice-server \(command): \(message)\n\(usage)"))
        }
        var scanner = CommandLineScanner(arguments)
        var file: String?
        var directory: String?
        var force = false
        do throws(CommandLineError) {
            while let item = try scanner.next() {
                switch item {
                case .positional(let argument):
                    guard file == nil else { return fail("one backup file at a time, not also '\(argument)'") }
                    file = argument
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
        guard let file, !file.isEmpty else { return fail("which backup file?") }
        if command == "verify" { return .success(.verify(file: file)) }
        guard let directory else { return fail("--data DIR: the data directory to restore into") }
        return .success(.restore(file: file, directory: directory, force: force))
    }
}
