// swift-tools-version:6.0
// juice-server: a multi-user TCP server for a juice stand. Toolchain only: no package dependencies.
import PackageDescription

let package = Package(
    name: "juice-server",
    products: [
        .executable(name: "juice-server", targets: ["juice-server"]),
        .executable(name: "juice-bench", targets: ["juice-bench"]),
        .executable(name: "juice-board", targets: ["juice-board"]),
        .library(name: "JuiceCore", targets: ["JuiceCore"]),
        .library(name: "JuiceServer", targets: ["JuiceServer"]),
    ],
    targets: [
        // The domain and the wire protocol: menu, stock rules, commands, replies, framing. No I/O.
        .target(name: "JuiceCore"),
        // <sys/epoll.h>, which Swift's Glibc module leaves out (a header of libc: nothing to link).
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // The FruitStore actor, the journal, and the Dispatch socket server.
        .target(name: "JuiceServer", dependencies: ["JuiceCore", "CEpoll"]),
        .executableTarget(name: "juice-server", dependencies: ["JuiceServer"]),
        // A load generator for line protocols (ours and others', e.g. Redis inline commands);
        // it reads our replies with JuiceCore's client-side reader.
        .executableTarget(name: "juice-bench", dependencies: ["JuiceCore"]),
        // The live stock display: pure rendering in a library, the terminal loop in the executable.
        // It reads the server's lines and menu with JuiceCore (ServerLine, WireReader, Menu).
        .target(name: "JuiceBoard", dependencies: ["JuiceCore"]),
        .executableTarget(name: "juice-board", dependencies: ["JuiceBoard"]),
        // What every test target shares: the line client, the server process, `eventually`, a
        // seeded RNG, /proc readings. Test-only, hence under Tests/.
        .target(name: "JuiceTestSupport", dependencies: ["JuiceCore"], path: "Tests/JuiceTestSupport"),
        .testTarget(name: "JuiceCoreTests", dependencies: ["JuiceCore", "JuiceTestSupport"]),
        .testTarget(name: "JuiceServerTests", dependencies: ["JuiceServer", "JuiceCore", "juice-server", "JuiceTestSupport"]),
        .testTarget(name: "JuiceBoardTests", dependencies: ["JuiceBoard", "JuiceCore", "juice-board", "juice-server", "JuiceTestSupport"]),
        // juice-bench's pure parts (via @testable import of the executable) and real runs of it.
        .testTarget(name: "JuiceBenchTests", dependencies: ["juice-bench", "JuiceCore", "juice-server", "JuiceTestSupport"]),
    ]
)
