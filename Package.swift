// swift-tools-version:6.0
// juice-server: a multi-user TCP server for a juice stand. Toolchain only: no package dependencies.
import PackageDescription

let package = Package(
    name: "juice-server",
    // Atomic (Synchronization, in juice-bench) and a custom actor executor (ExecutorJob and
    // checkIsolated, in LoopExecutor) need macOS 15 / iOS 18. CI builds and tests on Linux
    // only; Darwin is supported by design (see JuicePlatform).
    platforms: [.macOS(.v15), .iOS(.v18)],
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
        // The platform seam: every POSIX call that differs between Linux and Darwin, the client
        // pollers (epoll; a Dispatch source per client), the one error type for system calls.
        .target(name: "JuicePlatform", dependencies: [.target(name: "CEpoll", condition: .when(platforms: [.linux]))]),
        // The FruitStore actor, the journal, and the Dispatch socket server.
        .target(name: "JuiceServer", dependencies: ["JuiceCore", "JuicePlatform"]),
        .executableTarget(name: "juice-server", dependencies: ["JuiceServer"]),
        // A load generator for line protocols (ours and others', e.g. Redis inline commands).
        .executableTarget(name: "juice-bench", dependencies: ["JuicePlatform"]),
        // The live stock display: pure rendering in a library, the terminal loop in the executable.
        .target(name: "JuiceBoard"),
        .executableTarget(name: "juice-board", dependencies: ["JuiceBoard", "JuicePlatform"]),
        .testTarget(name: "JuiceCoreTests", dependencies: ["JuiceCore"]),
        .testTarget(name: "JuiceServerTests", dependencies: ["JuiceServer", "JuiceCore", "JuicePlatform", "juice-server"]),
        .testTarget(name: "JuiceBoardTests", dependencies: ["JuiceBoard", "juice-board", "juice-server"]),
    ]
)
