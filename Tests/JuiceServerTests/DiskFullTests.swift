import Foundation
import Glibc
import Testing

/// A journal write that fails (here: a full disk) must not be acknowledged: the server logs it
/// and stops, as Redis does, rather than serve state it cannot keep. Needs root to mount a tiny
/// tmpfs; CI runs as root.
@Suite struct DiskFullTests {
    static var canMount: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func aFullDiskStopsTheServerWithoutAcknowledging() throws {
        let mountPoint = temporaryDirectory("juice-full")
        defer { removeTemporary(mountPoint) }
        let (mounted, output) = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint])
        try #require(mounted == 0, "mount failed: \(output)")
        defer { _ = try? run("/bin/umount", [mountPoint]) }

        let server = try ExecutableServer(["--data", mountPoint + "/data"])
        let c = try server.client()
        try c.send("ORDER banana")
        // No OK may come: the connection just ends when the server stops.
        let reply = try? c.reply()
        #expect(reply == nil || !(reply!.hasPrefix("OK")), "acknowledged a change it could not write: \(reply ?? "")")
        #expect(server.waitForExit() == 3)
        #expect(server.log().contains("No space left on device"))
        #expect(server.log().contains("journal"))
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
