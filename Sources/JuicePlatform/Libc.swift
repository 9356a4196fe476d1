// The platform's C library, re-exported: a file that imports JuicePlatform gets the POSIX names
// that are the same everywhere (read, recv, fcntl, errno, EAGAIN ...) without an `#if` of its own.
// What differs between Linux and Darwin lives in Platform+Glibc.swift and Platform+Darwin.swift.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Darwin)
@_exported import Darwin
#else
#error("juice-server needs Glibc (Linux) or Darwin (macOS, iOS)")
#endif
