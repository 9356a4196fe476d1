import JuiceCore
import Foundation

/// A test's own failure, with a message that says what was expected.
public struct TestError: Error, CustomStringConvertible {
    public let description: String
    /// The system's reason, where a system call failed: a test can tell a refused connection
    /// (ECONNREFUSED) from one that timed out.
    public let errno: Int32?
    public init(_ description: String, errno: Int32? = nil) {
        self.description = description
        self.errno = errno
    }
}

/// A fresh temporary directory, removed by the caller with `removeTemporary`.
public func temporaryDirectory(_ name: String = "juice-test") -> String {
    let path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

public func removeTemporary(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// A fresh temporary directory that removes itself when the test lets go of it: one line where
/// `temporaryDirectory` needs a `defer { removeTemporary(...) }` beside it. Held in a local of
/// the test, it lives to the end of the test's scope (Swift's lexical lifetimes: a value with a
/// deinit is not released before the calls that follow it).
public final class TemporaryDirectory: Sendable {
    public let path: String
    public init(_ name: String = "juice-test") { path = temporaryDirectory(name) }
    deinit { removeTemporary(path) }
}

/// A file's text, or "" if it cannot be read (yet).
public func readText(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
}

/// Parses `key=value` integers from a reply or event line (the one client-side reader).
public func values(_ line: String) -> [String: Int] {
    WireReader.integers(in: line)
}
