import Foundation
import JuicePlatform
import JuiceScreen

extension ClientOptions {
    /// This process's options, read as juice-board and juice-till both do: a bad command line
    /// prints the error and the usage to stderr and exits 2; --help prints the usage and exits 0.
    /// `program` names the program in the error line.
    public static func fromCommandLine(program: String, environment: [String: String]) -> Self {
        let options: Self
        do {
            options = try Self.parse(Array(CommandLine.arguments.dropFirst()), environment: environment)
        } catch {
            Platform.writeAll(STDERR_FILENO, "\(program): \(error)\n\(usage)\n")
            exit(2)
        }
        if options.showHelp {
            Platform.writeAll(STDOUT_FILENO, usage + "\n")
            exit(0)
        }
        return options
    }
}

