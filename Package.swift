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
        .executable(name: "juice-till", targets: ["juice-till"]),
        .library(name: "JuiceCore", targets: ["JuiceCore"]),
        .library(name: "JuiceServer", targets: ["JuiceServer"]),
        .library(name: "JuiceClient", targets: ["JuiceClient"]),
    ],
    targets: [
        // The values and the line codec a client needs: menu, commands, replies, framing. No I/O.
        .target(name: "JuiceCore"),
        // <sys/epoll.h>, which Swift's Glibc module leaves out (a header of libc: nothing to link).
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // The platform seam: every POSIX call that differs between Linux and Darwin, the client
        // pollers (epoll; a Dispatch source per client), the one error type for system calls,
        // the loop's executor.
        .target(name: "JuicePlatform", dependencies: [.target(name: "CEpoll", condition: .when(platforms: [.linux]))]),
        // The log: lines queued to a writer thread that alone blocks on stderr.
        .target(name: "JuiceLog", dependencies: ["JuicePlatform"]),
        // The Swift client library: pipelined calls, exactly-once orders, a gap-free stock stream.
        .target(name: "JuiceClient", dependencies: ["JuiceCore", "JuicePlatform"]),
        // The domain: the ledger, key memory, sales history, reports, tills, and the FruitStore
        // actor that alone changes them. No socket, no file: it keeps changes through the
        // ChangeJournal protocol.
        .target(name: "JuiceDomain", dependencies: ["JuiceCore", "JuicePlatform", "JuiceLog"]),
        // Storage: the journal and the snapshot, their record formats and their files.
        .target(name: "JuiceStorage", dependencies: ["JuiceDomain", "JuiceCore", "JuicePlatform", "JuiceLog"]),
        // The loop: sockets, connections, output, fan-out, fair turns. It names no protocol and
        // no store: protocols plug in through ServedProtocol and ConnectionSession.
        .target(name: "JuiceLoop", dependencies: ["JuiceCore", "JuicePlatform", "JuiceLog"]),
        // What every protocol is given: the store and the loop together (LoopServices), catch-ups,
        // the manager's token, the tills' presence, the settings.
        .target(name: "JuiceServices", dependencies: ["JuiceLoop", "JuiceDomain", "JuiceCore", "JuicePlatform", "JuiceLog"]),
        // The line protocol (telnet, nc, juice-till, JuiceClient).
        .target(name: "JuiceLine", dependencies: ["JuiceServices", "JuiceLoop", "JuiceDomain", "JuiceCore", "JuicePlatform", "JuiceLog"]),
        // HTTP: routes, the event stream, the pages, the OpenAPI document. The pages (Pages/:
        // HTML, CSS, JavaScript, SVG) and docs/openapi.json are files, not Swift: the EmbedFiles
        // plugin puts them in at build time as `EmbeddedFiles`, so SwiftPM must not see Pages/.
        .target(name: "JuiceHTTP", dependencies: ["JuiceServices", "JuiceLoop", "JuiceDomain", "JuiceCore", "JuicePlatform", "JuiceLog"],
                exclude: ["Pages"], plugins: ["EmbedFiles"]),
        // The build tool plugin that embeds those files, and the tool it runs (toolchain only).
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["embed-files"]),
        .executableTarget(name: "embed-files"),
        // The composition root: options, startup and recovery, the Server actor's lifecycle,
        // systemd. The executable below is a thin main over it.
        .target(name: "JuiceServer", dependencies: ["JuiceLine", "JuiceHTTP", "JuiceServices", "JuiceLoop", "JuiceStorage",
                                                    "JuiceDomain", "JuiceCore", "JuicePlatform", "JuiceLog"]),
        .executableTarget(name: "juice-server", dependencies: ["JuiceServer", "JuiceServices", "JuiceCore", "JuiceDomain", "JuicePlatform", "JuiceLog"]),
        // A load generator for line protocols (ours and others', e.g. Redis inline commands);
        // it reads our replies with JuiceCore's client-side reader.
        .executableTarget(name: "juice-bench", dependencies: ["JuiceCore", "JuiceDomain", "JuiceStorage", "JuicePlatform"]),
        // What the board's and the till's screens are made of, below both (pure): styled lines,
        // display width, the screen diff, the terminal size, the language, and the command-line
        // flags both share (ClientOptions, one parser).
        .target(name: "JuiceScreen", dependencies: ["JuiceCore", "JuicePlatform"]),
        // The live stock display: pure rendering in a library, the terminal loop in the executable.
        // It follows the stock with JuiceClient's stock() (JuiceCore's Menu and readers underneath).
        .target(name: "JuiceBoard", dependencies: ["JuiceScreen", "JuiceCore", "JuiceClient", "JuicePlatform"]),
        // The terminal the board and the till share: raw mode, size, signals, a wake-up pipe.
        .target(name: "JuiceTerminal", dependencies: ["JuiceScreen", "JuicePlatform"]),
        .executableTarget(name: "juice-board", dependencies: ["JuiceBoard", "JuiceScreen", "JuiceTerminal", "JuicePlatform"]),
        // The till: key rules, key store and screen in a library, the terminal loop in the executable.
        .target(name: "JuiceTill", dependencies: ["JuiceScreen", "JuiceClient", "JuiceCore"]),
        .executableTarget(name: "juice-till", dependencies: ["JuiceTill", "JuiceScreen", "JuiceTerminal", "JuiceClient", "JuicePlatform"]),
        // What every test target shares: the line client, the server process, `eventually`, a
        // seeded RNG, /proc readings. Test-only, hence under Tests/.
        .target(name: "JuiceTestSupport", dependencies: ["JuiceCore", "JuicePlatform"], path: "Tests/JuiceTestSupport"),
        .testTarget(name: "JuiceCoreTests", dependencies: ["JuiceCore", "JuiceDomain", "JuiceStorage", "JuiceTestSupport"]),
        // Fixtures/: data directories written by earlier builds, opened by the tests (read by path).
        .testTarget(name: "JuiceServerTests", dependencies: ["JuiceServer", "JuiceLine", "JuiceHTTP", "JuiceServices", "JuiceLoop", "JuiceStorage", "JuiceDomain", "JuiceCore", "JuicePlatform", "JuiceLog", "juice-server", "embed-files", "JuiceTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "JuiceBoardTests", dependencies: ["JuiceBoard", "JuiceScreen", "JuiceCore", "juice-board", "juice-server", "JuiceTestSupport"]),
        // The client library against the real server.
        .testTarget(name: "JuiceClientTests", dependencies: ["JuiceClient", "JuiceCore", "JuicePlatform", "juice-server", "JuiceTestSupport"]),
        // The till's library (screen, keys) and juice-till itself, driven in tmux and by pipe.
        .testTarget(name: "JuiceTillTests", dependencies: ["JuiceTill", "JuiceScreen", "JuiceClient", "JuiceCore", "juice-till", "juice-server", "JuiceTestSupport"]),
        // The platform seam on its own: addresses, connects.
        .testTarget(name: "JuicePlatformTests", dependencies: ["JuicePlatform", "JuiceTestSupport"]),
        // The demo script (scripts/demo.sh): it parses, passes shellcheck and answers --help.
        .testTarget(name: "ScriptTests", dependencies: ["JuiceTestSupport"]),
        // A third protocol (JSON lines), added from outside the server's code: the proof that the
        // loop, the store and the storage name no protocol, and that a protocol needs nothing
        // but JuiceServices' seam (SessionLink, PacedInput) and no @testable import.
        .target(name: "JSONLinesProtocol", dependencies: ["JuiceServices", "JuiceLoop", "JuiceDomain", "JuiceCore"], path: "Tests/JSONLinesProtocol"),
        .testTarget(name: "JSONLinesProtocolTests", dependencies: ["JSONLinesProtocol", "JuiceServer", "JuiceServices", "JuiceCore", "JuiceTestSupport"]),
        // juice-bench's pure parts (via @testable import of the executable) and real runs of it.
        .testTarget(name: "JuiceBenchTests", dependencies: ["juice-bench", "JuiceCore", "juice-server", "JuiceTestSupport"]),
    ]
)
