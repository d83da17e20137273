import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process's peak resident set size, from `/proc/self/status` (VmHWM), and a way to
/// reset it between runs (`/proc/self/clear_refs`, value 5), so that each run's peak is its own.
///
/// For example:
/// ```swift
/// let perRun = PeakMemory.resetPeak()
/// // … run …
/// print(PeakMemory.peakBytes() ?? 0, perRun ? "this run" : "whole process")
/// ```
public enum PeakMemory {
    /// Resets the kernel's peak RSS counter for this process; `false` if the kernel refused
    /// (then the peak covers the whole process so far).
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do { try handle.write(contentsOf: Data("5".utf8)) } catch { return false }
        return true
    }

    /// Hands memory freed by earlier runs back to the system (glibc's `malloc_trim`), so the
    /// next run starts from what is really still in use.
    public static func releaseFreedMemory() {
        #if canImport(Glibc)
        // malloc_trim is glibc's but not in the Glibc module's headers: look it up by name.
        typealias MallocTrim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        }
        #endif
    }

    /// Peak resident set size in bytes, or nil where `/proc` does not tell.
    public static func peakBytes() -> UInt64? { statusValue("VmHWM:") }

    /// Current resident set size in bytes, or nil where `/proc` does not tell.
    public static func currentBytes() -> UInt64? { statusValue("VmRSS:") }

    private static func statusValue(_ key: String) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            let digits = line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return digits.flatMap { UInt64($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
