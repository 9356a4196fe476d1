@_exported import JuiceTestSupport

/// Helpers for tests that run the real `juice-server` and `juice-board` executables; the
/// shared ones (line client, server process, `eventually`) come from JuiceTestSupport.

func executable(_ name: String) -> String { Executables.path(name) }

/// The seq of every `seq=N ...` line in plain board output, in order.
func printedSeqs(_ output: String) -> [Int] {
    output.split(separator: "\n").compactMap { line in
        guard line.hasPrefix("seq="), let end = line.firstIndex(of: " ") else { return nil }
        return Int(line[line.index(line.startIndex, offsetBy: 4)..<end])
    }
}
