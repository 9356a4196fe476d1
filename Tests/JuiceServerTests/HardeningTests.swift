import Testing

/// Hardening: fuzzing, hostile and slow clients, resource limits, signals, auth, over real sockets
/// against the real server (in-process where convenient, the built binary for memory, signals,
/// environment and flags). Serialized: several of these load a 2-core machine on their own. The
/// tests live in extensions, one file per concern: FuzzTests, HostileInputTests,
/// SlowConsumerTests, ManyClientsTests, AuthTests, SignalTests, IdleAndLimitsTests.
@Suite(.serialized, .onOwnThreads) struct HardeningTests {}
