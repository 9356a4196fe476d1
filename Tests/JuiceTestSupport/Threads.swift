import Foundation

/// A value shared between test threads, behind a lock.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func read<T>(_ body: (Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(value)
    }

    public func update<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    public var get: Value { read { $0 } }
}

/// Runs `body(i)` for i in 0..<count, each on its own thread, and waits for all. Blocking socket
/// loops belong on threads: on the 2-thread Swift cooperative pool they could starve each other.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        let thread = Thread {
            body(i)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}
