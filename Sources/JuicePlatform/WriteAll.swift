#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Platform {
    /// Writes every byte or reports failure: rides out partial writes, EINTR, and EAGAIN on a
    /// descriptor someone made non-blocking (a terminal shared with another process). The one
    /// copy of this loop; false means the descriptor is gone (EPIPE, EBADF, a full disk).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var next = bytes.baseAddress else { return true }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, next, left)
            if n > 0 {
                next += n
                left -= n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var wanted = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&wanted, 1, 100)
            } else {
                return false
            }
        }
        return true
    }

    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    @discardableResult
    public static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }
}

extension Platform {
    /// pwrite(2) of every byte at `offset` of a regular file (the journal), without moving the
    /// file position: rides out partial writes and EINTR. False with `errno` set on failure
    /// (ENOSPC, EIO, ...).
    @discardableResult
    public static func pwriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard var next = bytes.baseAddress else { return true }
        var left = bytes.count
        var at = offset
        while left > 0 {
            let n = pwrite(fd, next, left, off_t(at))
            if n > 0 {
                next += n
                left -= n
                at += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                if n == 0 { errno = EIO }  // no progress on a regular file: report it, do not spin
                return false
            }
        }
        return true
    }
}
