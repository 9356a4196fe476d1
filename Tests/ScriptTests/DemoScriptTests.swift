import Foundation
import JuiceTestSupport
import Testing

/// scripts/demo.sh must at least parse, and pass shellcheck where shellcheck is installed.
@Suite(.onOwnThreads) struct DemoScriptTests {
    static let script: String = {
        // Tests/ScriptTests/DemoScriptTests.swift -> the package root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/demo.sh").path
    }()

    /// Runs a command found on PATH: its exit status and combined output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Executables.run("/usr/bin/env", arguments)
    }

    @Test func parsesWithBash() throws {
        #expect(FileManager.default.fileExists(atPath: Self.script))
        let result = try Self.run(["bash", "-n", Self.script])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(.requires(.shellcheck))
    func passesShellcheck() throws {
        try OutsideTool.shellcheck.require()
        let result = try Self.run(["shellcheck", Self.script])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func helpNeedsNoBuildAndNoTmux() throws {
        let result = try Self.run(["bash", Self.script, "--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("--no-attach"))
    }
}
