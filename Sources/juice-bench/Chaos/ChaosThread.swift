import JuicePlatform

/// A plain POSIX thread for one blocking actor of a chaos run (a till, the display, the
/// conductor). Each of them waits on sockets and child processes with timeouts; on threads of
/// their own they cannot starve one another, as they could on a small cooperative pool.
final class ChaosThread: Sendable {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

#if canImport(Glibc)
    private let thread: pthread_t
#else
    private let thread: pthread_t?
#endif

    init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
#if canImport(Glibc)
        var handle = pthread_t()
#else
        var handle: pthread_t?
#endif
        let status = pthread_create(&handle, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        // Without threads the run cannot happen at all; there is nothing sensible to continue with.
        precondition(status == 0, "pthread_create failed: \(status)")
        thread = handle
    }

    func join() {
#if canImport(Glibc)
        pthread_join(thread, nil)
#else
        if let thread { pthread_join(thread, nil) }
#endif
    }
}

/// Sleeps for `seconds` (a fraction is fine); returns early never, so callers keep steps short.
func pause(seconds: Double) {
    guard seconds > 0 else { return }
    var left = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var asked = left
    while nanosleep(&asked, &left) == -1 && errno == EINTR { asked = left }
}

/// SplitMix64: small and deterministic, so a run's choices (which juice, when to kill, which
/// keys to re-send over HTTP) replay from its `--seed`. The threads still interleave as the
/// machine schedules them, so a seed replays the plan, not the exact timing.
struct ChaosRNG: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An independent stream for one actor of the run (actor `index` of the seed).
    static func stream(_ seed: UInt64, _ index: UInt64) -> ChaosRNG {
        var mixer = ChaosRNG(seed: seed ^ (index &* 0xD6E8_FEB8_6659_FD93))
        return ChaosRNG(seed: mixer.next())
    }
}
