import Foundation

/// Reads Prometheus exposition text with the reference parser, Python's prometheus_client
/// (`pip install prometheus_client`; .ci/run installs it), so a test checks the format against
/// what a real scraper accepts, not against our own reading of it. A test that uses it is marked
/// `.requires(.prometheusClient)` (`OutsideTool`): skipped where the package is missing.
public enum PrometheusParser {
    /// python3 on PATH, if this machine has one.
    public static let python3 = OutsideTool.onPath("python3")

    /// Every sample, keyed `name{label="value",...}` (labels sorted; no braces without labels).
    /// Throws if the parser refuses the text.
    public static func samples(_ text: String) throws -> [String: Double] {
        let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        out = {}
        for family in text_string_to_metric_families(sys.stdin.buffer.read().decode("utf-8")):
            for s in family.samples:
                labels = ",".join('%s="%s"' % (k, v) for k, v in sorted(s.labels.items()))
                out[s.name + ("{" + labels + "}" if labels else "")] = s.value
        print(json.dumps(out))
        """
        let out = try run(script, input: text)
        guard let parsed = try JSONSerialization.jsonObject(with: out) as? [String: Double] else {
            throw TestError("prometheus_client's parser gave no samples")
        }
        return parsed
    }

    /// Every family as read: `name`, `type`, `help`, and `samples` as [name, labels, value].
    public static func families(_ text: String) throws -> [[String: Any]] {
        let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        text = sys.stdin.buffer.read().decode("utf-8")
        print(json.dumps([{"name": f.name, "type": f.type, "help": f.documentation,
                           "samples": [[s.name, s.labels, s.value] for s in f.samples]}
                          for f in text_string_to_metric_families(text)]))
        """
        guard let parsed = try JSONSerialization.jsonObject(with: run(script, input: text)) as? [[String: Any]] else {
            throw TestError("prometheus_client's parser gave no families")
        }
        return parsed
    }

    /// Runs a Python script with `input` on stdin; its stdout, or a throw with its stderr
    /// (a refused text, or prometheus_client missing: `pip install prometheus_client`). The
    /// input and both outputs are files, so no pipe can fill while another is being read.
    private static func run(_ script: String, input text: String) throws -> Data {
        guard let python3 else { throw TestError("python3 is not installed") }
        let directory = temporaryDirectory("juice-prometheus")
        defer { removeTemporary(directory) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/input"))
        let python = try ChildProcess(python3, ["-c", script], stdinPath: directory + "/input",
                                      stdoutPath: directory + "/output", stderrPath: directory + "/errors")
        let status = python.waitForExit() ?? python.killNow()
        guard status == 0 else {
            throw TestError("python3 with prometheus_client's parser failed (\(status)): \(python.errors)")
        }
        return (try? Data(contentsOf: URL(fileURLWithPath: python.stdoutPath))) ?? Data()
    }
}
