@_exported import JuiceTestSupport
import JuiceCore

/// Helpers for tests that run the real `juice-server` and `juice-board` executables; the
/// shared ones (line client, server process, `eventually`) come from JuiceTestSupport.

func executable(_ name: String) -> String { Executables.path(name) }

/// The seq of every `seq=N ...` line in plain board output, in order.
func printedSeqs(_ output: String) -> [Int] {
    output.split(separator: "\n").compactMap { line in
        guard line.hasPrefix("seq=") else { return nil }
        return WireReader.seq(in: String(line)).map { Int($0) }
    }
}
