import Foundation
import Testing

/// scripts/demo.sh must at least parse, and pass shellcheck where shellcheck is installed.
@Suite(.onOwnThreads) struct DemoScriptTests {
    static let script: String = {
        // Tests/JuiceBoardTests/DemoScriptTests.swift -> the package root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/demo.sh").path
    }()

    /// Runs a command, returning its exit status and combined output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
