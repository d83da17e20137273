public import Foundation

/// What every fuzz target asserts: a failed check stops the run the way libFuzzer records as
/// a crash (the input is written to `crash-<sha1>`), with a message saying which property broke.
///
/// ```swift
/// FuzzCheck.expect(error.code == .corruptFile, "untyped failure: \(error)")
/// ```
public enum FuzzCheck {
    /// Stops the run when `condition` is false.
    public static func expect(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                              file: StaticString = #fileID, line: UInt = #line) {
        if !condition() { fail(message(), file: file, line: line) }
    }

    /// Stops the run: the input broke a property of the target.
    public static func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        FileHandle.standardError.write(Data("FUZZ CHECK FAILED (\(file):\(line)): \(message)\n".utf8))
        abort()
    }

    /// The input libFuzzer passes, as `Data` (its pointer may be null for an empty input).
    public static func data(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let bytes, count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
