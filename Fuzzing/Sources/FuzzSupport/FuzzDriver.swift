import CFuzzDriver

/// The signature of `LLVMFuzzerTestOneInput`.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Starts libFuzzer with the process's command line. SwiftPM links an executable's `main` to
/// `<module>_main`, so each target defines that and calls this:
///
/// ```swift
/// @_cdecl("FuzzPredicate_main")
/// func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
///     FuzzDriver.run(argc, argv, fuzzPredicate)
/// }
/// ```
public enum FuzzDriver {
    public static func run(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ target: FuzzTarget) -> CInt {
        var count = argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        return LLVMFuzzerRunDriver(&count, &arguments, target)
    }
}
